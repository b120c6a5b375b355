// The staff console's sign-in checks. staffSignIn: GET /api/v1/me with the key or token, never with a cookie.
// Resolves to { me } for a staff or admin identity, else to { message } and what to do about it: forget the key,
// focus the field, or offer the same key again. staffTrialSignIn: trial mode's sign-in by cookie (below). Plain JS,
// loaded before staff.js.
'use strict';

// Trial mode: opening the URL the app printed (/staff?token=…) set the HttpOnly trial cookie, which this page
// cannot read, and a marker cookie it can. With the marker, GET /api/v1/me with cookies: resolves to the identity
// when that is trial mode's `local`, else to null (no marker: no request, so a keyed console shows no 401).
window.staffTrialSignIn = async function staffTrialSignIn() {
  if (!document.cookie.split(';').some((c) => c.trim() === 'qf_trial_signin=1')) {
    return null;
  }
  try {
    const response = await fetch('/api/v1/me', {
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { Accept: 'application/json' },
    });
    if (!response.ok) {
      return null;
    }
    const me = await response.json();
    return me && me.kind === 'LOCAL' ? me : null;
  } catch (e) {
    return null;
  }
};

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
