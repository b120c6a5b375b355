// The staff console's sign-in check: GET /api/v1/me with the key or token, never with a cookie. Resolves to
// { me } for a staff or admin identity, else to { message } and what to do about it: forget the key, focus the
// field, or offer the same key again. Plain JS, loaded before staff.js.
'use strict';

window.staffSignIn = async function staffSignIn(candidate) {
  let response;
  try {
    response = await fetch('/api/v1/me', {
      credentials: 'omit',
      cache: 'no-store',
      headers: { Accept: 'application/json', Authorization: `Bearer ${candidate}` },
    });
  } catch (e) {
    // a network failure, or a key with characters no HTTP header can carry
    return { message: `Could not check the key: ${e.message}`, retry: true };
  }
  if (response.status === 401) {
    return {
      message: 'That key or token was not accepted (401). Check it and try again.', forget: true, focus: true,
    };
  }
  if (response.status === 403) {
    return {
      message: 'This key or token is valid but not for support staff (403): the console needs a staff or admin'
        + ' identity.',
      forget: true,
      focus: true,
    };
  }
  if (!response.ok) {
    return { message: `Could not sign in: ${await window.problemText(response)}`, retry: true };
  }
  const me = await response.json();
  const roles = Array.isArray(me.roles) ? me.roles : [];
  if (!roles.includes('ROLE_STAFF') && !roles.includes('ROLE_ADMIN')) {
    return {
      message: `Signed in as ${me.name} (${me.kind}), which is not support staff: the console needs a staff or admin`
        + ' identity.',
      forget: true,
    };
  }
  return { me };
};
