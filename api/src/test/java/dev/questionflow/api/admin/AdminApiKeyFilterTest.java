package dev.questionflow.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

class AdminApiKeyFilterTest {

  private static MockHttpServletResponse call(String configuredKey, String givenKey) throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/v1/admin/dead-letters/T-1/redrive");
    if (givenKey != null) {
      request.addHeader(AdminApiKeyFilter.HEADER, givenKey);
    }
    MockHttpServletResponse response = new MockHttpServletResponse();
    MockFilterChain chain = new MockFilterChain();
    new AdminApiKeyFilter(configuredKey).doFilter(request, response, chain);
    if (chain.getRequest() != null) {
      response.setStatus(299); // marks "passed on to the controller"
    }
    return response;
  }

  @Test
  void theRightKeyPassesTheRequestOn() throws Exception {
    assertThat(call("s3cret", "s3cret").getStatus()).isEqualTo(299);
  }

  @Test
  void noKeyOrAWrongKeyIs401AndTheRequestGoesNoFurther() throws Exception {
    MockHttpServletResponse missing = call("s3cret", null);
    MockHttpServletResponse wrong = call("s3cret", "s3cret2");
    MockHttpServletResponse empty = call("s3cret", "");

    assertThat(missing.getStatus()).isEqualTo(401);
    assertThat(missing.getHeader("WWW-Authenticate")).isEqualTo("ApiKey header=\"X-Api-Key\"");
    assertThat(missing.getContentAsString()).contains("needs the X-Api-Key header");
    assertThat(wrong.getStatus()).isEqualTo(401);
    assertThat(wrong.getContentAsString()).contains("wrong X-Api-Key");
    assertThat(empty.getStatus()).isEqualTo(401);
  }

  @Test
  void withoutAConfiguredKeyTheAdminApiRefusesEverything() throws Exception {
    assertThat(call("", "").getStatus()).isEqualTo(401);
    assertThat(call(null, "anything").getStatus()).isEqualTo(401);
    assertThat(call(" ", " ").getContentAsString()).contains("disabled: set ADMIN_API_KEY");
  }
}
