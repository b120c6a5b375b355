package dev.questionflow.activities.privacy;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What the {@link Redactor} removes ({@code cs.privacy.redaction}).
 *
 * @param kinds the kinds redacted; the others pass unchanged
 * @param allow values never redacted, e.g. the support line's own phone number or address: phone
 *     numbers, cards, IBANs and ID numbers compare on their letters and digits only (so any spacing
 *     or dashes match), e-mail addresses ignoring case
 */
public record RedactionSettings(Set<PersonalData> kinds, List<String> allow) {

  /** Every kind, nothing allowed. */
  public static final RedactionSettings ALL =
      new RedactionSettings(EnumSet.allOf(PersonalData.class), List.of());

  public RedactionSettings {
    kinds =
        kinds == null || kinds.isEmpty()
            ? Collections.unmodifiableSet(EnumSet.noneOf(PersonalData.class))
            : Collections.unmodifiableSet(EnumSet.copyOf(kinds));
    allow =
        allow == null
            ? List.of()
            : allow.stream().filter(a -> a != null && !a.isBlank()).map(String::strip).toList();
  }

  public boolean redacts(PersonalData kind) {
    return kinds.contains(kind);
  }
}
