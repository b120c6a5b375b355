package dev.questionflow.activities.privacy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** True and false positives of every kind, in English and Chinese text. */
class RedactorTest {

  private static final Clock MAY_2025 =
      Clock.fixed(Instant.parse("2025-05-18T00:00:00Z"), ZoneOffset.UTC);

  private final Redactor all = new Redactor(RedactionSettings.ALL, MAY_2025);

  private static Redactor only(Set<PersonalData> kinds, String... allow) {
    return new Redactor(new RedactionSettings(kinds, List.of(allow)), MAY_2025);
  }

  private static Redactor allBut(PersonalData off) {
    Set<PersonalData> kinds = EnumSet.allOf(PersonalData.class);
    kinds.remove(off);
    return only(kinds);
  }

  @Nested
  class Cards {

    @Test
    void luhnValidCardNumbersInAnyGroupingAreRedacted() {
      assertThat(all.redact("card 4111111111111111 ok")).isEqualTo("card [CARD] ok");
      assertThat(all.redact("card 4111 1111 1111 1111.")).isEqualTo("card [CARD].");
      assertThat(all.redact("amex 3782-822463-10005")).isEqualTo("amex [CARD]");
      assertThat(all.redact("UnionPay 6222 0212 3456 7890 128")).isEqualTo("UnionPay [CARD]");
    }

    @Test
    void theCardIsCutFromWhatSurroundsIt() {
      assertThat(all.redact("card 5500 0000 0000 0004 exp 12 27"))
          .isEqualTo("card [CARD] exp 12 27");
      assertThat(all.redact("card 4111 1111 1111 1111 12 25")).isEqualTo("card [CARD] 12 25");
      assertThat(all.redact("ref 12 4111 1111 1111 1111")).isEqualTo("ref 12 [CARD]");
    }

    @Test
    void chineseTextAroundACardNeedsNoSpaces() {
      assertThat(all.redact("我的卡号是4111111111111111，请帮我查一下")).isEqualTo("我的卡号是[CARD]，请帮我查一下");
    }

    @Test
    void aFailedLuhnChecksumIsNotACard() {
      assertThat(all.redact("card 4111111111111112 ok")).isEqualTo("card 4111111111111112 ok");
      assertThat(Checksums.luhn("4111111111111112")).isFalse();
    }

    @Test
    void orderNumbersAreNotCards() {
      // as customers write them (both fail Luhn) ...
      assertThat(all.redact("order 20240518123456789 is late"))
          .isEqualTo("order 20240518123456789 is late");
      assertThat(all.redact("order ORD-4111111111111112 is late"))
          .isEqualTo("order ORD-4111111111111112 is late");
      // ... and Luhn-valid ones: a year is no card network's prefix, an "ORD-" prefix makes an
      // identifier
      assertThat(Checksums.luhn("20240518123456781")).isTrue();
      assertThat(all.redact("order 20240518123456781")).isEqualTo("order 20240518123456781");
      assertThat(all.redact("order ORD-4111111111111111 or A4111111111111111"))
          .isEqualTo("order ORD-4111111111111111 or A4111111111111111");
      assertThat(all.redact("订单号20240518123456781")).isEqualTo("订单号20240518123456781");
    }
  }

  @Nested
  class Phones {

    @ParameterizedTest
    @ValueSource(
        strings = {
          "+44 20 7946 0958",
          "+1 (555) 123-4567",
          "+86 138 1234 5678",
          "+8613812345678",
          "(555) 123-4567",
          "555-123-4567",
          "13812345678",
          "138-1234-5678",
          "020 7946 0958",
          "010-12345678",
          "0755-8888 8888"
        })
    void phoneShapesAreRedacted(String phone) {
      assertThat(all.redact("call " + phone + " now")).isEqualTo("call [PHONE] now");
    }

    @Test
    void chineseTextAroundAMobileNumberNeedsNoSpaces() {
      assertThat(all.redact("请拨打13812345678联系我")).isEqualTo("请拨打[PHONE]联系我");
      assertThat(all.redact("电话：+86 139 1234 5678。")).isEqualTo("电话：[PHONE]。");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "since 2024-05-01",
          "on 18.05.2024",
          "on 2024/05/18 at 10:30",
          "2024-05-18 10:30",
          "the fee is 1299.00 EUR",
          "¥1,299.00",
          "within 3-5 working days",
          "ref 1234567",
          "2024年5月18日下午3点",
          "version 1.2.3.4",
          "+5.00 points"
        })
    void datesAmountsAndShortReferencesAreNotPhones(String text) {
      assertThat(all.redact(text)).isEqualTo(text);
    }

    @Test
    void anAllowListedSupportNumberStaysInAnyFormat() {
      Redactor withSupport =
          new Redactor(
              new RedactionSettings(EnumSet.allOf(PersonalData.class), List.of("400-820-8820")),
              MAY_2025);

      assertThat(withSupport.redact("call us on 400 820 8820 or 400.820.8820"))
          .isEqualTo("call us on 400 820 8820 or 400.820.8820");
      assertThat(withSupport.redact("from abroad: +86 400 820 8820"))
          .isEqualTo("from abroad: +86 400 820 8820");
      assertThat(withSupport.redact("客服电话400-820-8820，我的电话13812345678"))
          .isEqualTo("客服电话400-820-8820，我的电话[PHONE]");
    }
  }

  @Nested
  class Emails {

    @Test
    void addressesAreRedacted() {
      assertThat(all.redact("write to jane.doe+bank@mail.example.co.uk please"))
          .isEqualTo("write to [EMAIL] please");
      assertThat(all.redact("邮箱是zhang.wei@example.cn谢谢")).isEqualTo("邮箱是[EMAIL]谢谢");
    }

    @Test
    void aNumericAddressIsOneEmailNotAPhone() {
      assertThat(all.redact("QQ邮箱13812345678@qq.com")).isEqualTo("QQ邮箱[EMAIL]");
    }

    @Test
    void anAllowListedAddressStaysWhateverItsCase() {
      Redactor withSupport = only(EnumSet.allOf(PersonalData.class), "support@northwind.example");

      assertThat(withSupport.redact("mail Support@Northwind.example or me@home.example"))
          .isEqualTo("mail Support@Northwind.example or [EMAIL]");
    }

    @Test
    void notAddresses() {
      assertThat(all.redact("meet @ 10, price 5@3 each")).isEqualTo("meet @ 10, price 5@3 each");
    }
  }

  @Nested
  class Ibans {

    @Test
    void validIbansAreRedactedWithOrWithoutSpaces() {
      assertThat(all.redact("IBAN DE89 3704 0044 0532 0130 00 please"))
          .isEqualTo("IBAN [IBAN] please");
      assertThat(all.redact("IBAN DE89370400440532013000.")).isEqualTo("IBAN [IBAN].");
      assertThat(all.redact("to GB82 WEST 1234 5698 7654 32 today")).isEqualTo("to [IBAN] today");
      assertThat(all.redact("lowercase fr14 2004 1010 0505 0001 3m02 606"))
          .isEqualTo("lowercase [IBAN]");
      assertThat(all.redact("账户DE89370400440532013000谢谢")).isEqualTo("账户[IBAN]谢谢");
    }

    @Test
    void oneDigitOffIsNotAnIban() {
      assertThat(Checksums.iban("DE89370400440532013001")).isFalse();
      assertThat(all.redact("IBAN DE89 3704 0044 0532 0130 01 please"))
          .isEqualTo("IBAN DE89 3704 0044 0532 0130 01 please");
    }

    @Test
    void anAllowListedIbanStays() {
      Redactor ours = only(EnumSet.allOf(PersonalData.class), "DE89 3704 0044 0532 0130 00");

      assertThat(ours.redact("pay to DE89370400440532013000"))
          .isEqualTo("pay to DE89370400440532013000");
    }
  }

  @Nested
  class ChineseIds {

    @Test
    void validIdsAreRedacted() {
      assertThat(all.redact("身份证号11010519491231002X，请核实")).isEqualTo("身份证号[CN_ID]，请核实");
      assertThat(all.redact("ID 44030419900307123x")).isEqualTo("ID [CN_ID]");
      assertThat(all.redact("ID 310115 19850815 0317")).isEqualTo("ID [CN_ID]");
    }

    @Test
    void aBadChecksumIsNotAnId() {
      assertThat(all.redact("身份证号310115198508150316")).isEqualTo("身份证号310115198508150316");
    }

    @Test
    void aBadBirthDateIsNotAnId() {
      // both carry the right check character: only the date is wrong (30 February; born in 2099)
      assertThat(Checksums.chineseId("110101199002301236", java.time.LocalDate.of(2025, 5, 18)))
          .isFalse();
      assertThat(all.redact("ID 110101199002301236")).isEqualTo("ID 110101199002301236");
      assertThat(all.redact("ID 110101209913011236")).isEqualTo("ID 110101209913011236");
    }
  }

  @Nested
  class SwitchedOff {

    private static final String EVERYTHING =
        "card 4111 1111 1111 1111, phone 13812345678, mail a@b.io, "
            + "IBAN DE89370400440532013000, 身份证11010519491231002X";

    @Test
    void everyKindOnByDefault() {
      assertThat(all.redact(EVERYTHING))
          .isEqualTo("card [CARD], phone [PHONE], mail [EMAIL], IBAN [IBAN], 身份证[CN_ID]");
    }

    @Test
    void eachKindCanBeSwitchedOffAlone() {
      assertThat(allBut(PersonalData.CARD).redact(EVERYTHING))
          .isEqualTo(
              "card 4111 1111 1111 1111, phone [PHONE], mail [EMAIL], IBAN [IBAN], 身份证[CN_ID]");
      assertThat(allBut(PersonalData.PHONE).redact(EVERYTHING))
          .isEqualTo("card [CARD], phone 13812345678, mail [EMAIL], IBAN [IBAN], 身份证[CN_ID]");
      assertThat(allBut(PersonalData.EMAIL).redact(EVERYTHING))
          .isEqualTo("card [CARD], phone [PHONE], mail a@b.io, IBAN [IBAN], 身份证[CN_ID]");
      assertThat(allBut(PersonalData.IBAN).redact(EVERYTHING))
          .isEqualTo(
              "card [CARD], phone [PHONE], mail [EMAIL], IBAN DE89370400440532013000, 身份证[CN_ID]");
      assertThat(allBut(PersonalData.CN_ID).redact(EVERYTHING))
          .isEqualTo(
              "card [CARD], phone [PHONE], mail [EMAIL], IBAN [IBAN], 身份证11010519491231002X");
    }

    @Test
    void aKindSwitchedOffStillKeepsItsDigitsFromTheOtherKinds() {
      assertThat(allBut(PersonalData.EMAIL).redact("mail 13812345678@qq.com"))
          .isEqualTo("mail 13812345678@qq.com");
    }

    @Test
    void nothingOnChangesNothing() {
      assertThat(only(Set.of()).redact(EVERYTHING)).isEqualTo(EVERYTHING);
    }
  }

  @Test
  void nullAndEmptyPassThrough() {
    assertThat(all.redact(null)).isNull();
    assertThat(all.redact("")).isEmpty();
  }

  @Test
  void placeholdersAreNotRedactedAgain() {
    String once = all.redact("card 4111111111111111 and 13812345678");
    assertThat(all.redact(once)).isEqualTo(once);
  }

  @Test
  void aLongRunOfDigitGroupsIsHandledInLinearTime() {
    String hostile = "+1" + " 1".repeat(5_000) + "x" + " 4111".repeat(5_000);
    long started = System.nanoTime();
    all.redact(hostile);
    assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(2_000);
  }
}
