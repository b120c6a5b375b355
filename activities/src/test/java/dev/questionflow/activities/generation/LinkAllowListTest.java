package dev.questionflow.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LinkAllowListTest {

  private final LinkAllowList links =
      new LinkAllowList(List.of("northwind.example", "https://help.partner.example/"));

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "Verify at https://evil.example/login now                     | evil.example",
        "Verify at HTTP://EVIL.EXAMPLE:8443/login                      | evil.example",
        "Visit www.evil-support.example to continue.                   | www.evil-support.example",
        "[Reset your password](http://evil.example/reset)              | evil.example",
        "[Reset your password](evil.example/reset)                     | evil.example",
        "[Click here](javascript:alert(document.cookie))               | javascript:",
        "Log in at https://northwind.example@evil.example/verify       | evil.example",
        "Log in at https://northwind.example.evil.example/login        | northwind.example.evil.example",
        "Go to evil-bank.example/verify today                          | evil-bank.example",
        "Open //evil.example/x in your browser                         | evil.example",
        "Open https://evil.example\\@northwind.example/                | evil.example",
        "Fetch ftp://files.northwind.example/statement                 | ftp:",
        "Visit https://nоrthwind.example/login (Cyrillic o)            | xn--nrthwind-nbh.example",
        "请访问 ｈｔｔｐｓ：／／ｅｖｉｌ．ｅｘａｍｐｌｅ／ｌｏｇｉｎ 验证               | evil.example",
        "请点击https://evil.example/验证账户                              | evil.example",
        "退款网址：evil-refund.example/claim                             | evil-refund.example",
        "短链接：//evil.example/x                                       | evil.example",
        "Log in at evil.com to verify your card.                       | evil.com",
        "Your refund is waiting at Refund-Center.co.uk                 | refund-center.co.uk",
        "请登录 evil.cn 验证                                              | evil.cn"
      })
  void linksToOtherHostsAreForeign(String answer, String foreign) {
    assertThat(links.firstForeign(answer.strip())).isEqualTo(foreign);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "See https://northwind.example/cards for details.",
        "See https://www.northwind.example/cards (our site).",
        "Our help centre: https://help.northwind.example/faq?q=card#arrival.",
        "Partner help: https://help.partner.example/cards",
        "Visit www.northwind.example, or [our FAQ](https://northwind.example/faq).",
        "[Your profile](/profile) and [top](#top) are on this page.",
        "Cards arrive within 3-5 working days, e.g. by 18.05.2024, at 10:30.",
        "The fee is 2.5% (see section 3.1/a).",
        "Write to support@northwind.example for help.",
        "您的卡将在3-5个工作日内送达。",
        "Log in at northwind.example or help.northwind.example to check.",
        "Cards arrive in 3-5 days, i.e. by Friday, e.g. via courier.",
        "Attach the statement.pdf and the form v2.1 to your reply."
      })
  void allowedHostsTheirSubdomainsAndTextWithoutLinksPass(String answer) {
    assertThat(links.firstForeign(answer)).isNull();
  }

  @Test
  void aSiblingOfAnAllowedSubdomainIsForeign() {
    assertThat(links.firstForeign("https://evil.partner.example/"))
        .isEqualTo("evil.partner.example");
  }

  @Test
  void withNoHostAllowedEveryLinkIsForeign() {
    assertThat(LinkAllowList.NONE.firstForeign("https://northwind.example/"))
        .isEqualTo("northwind.example");
    assertThat(LinkAllowList.NONE.firstForeign("no links here")).isNull();
  }

  /**
   * The stricter reading of bare host names must not turn a shipped standard answer into a link.
   */
  @ParameterizedTest
  @ValueSource(strings = {"banking77", "ecommerce-zh"})
  void noShippedFaqAnswerLinksAnywhere(String packId) {
    for (dev.questionflow.faq.FaqEntry entry :
        dev.questionflow.faq.FaqPacks.loadFromClasspath(packId).entries()) {
      // the packs' one link is the example bank's own site, which its operators allow
      assertThat(links.firstForeign(entry.answer())).as(entry.id()).isNull();
    }
  }
}
