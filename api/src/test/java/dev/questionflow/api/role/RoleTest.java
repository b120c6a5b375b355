package dev.questionflow.api.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.mock.env.MockEnvironment;

class RoleTest {

  @Test
  void unsetIsAllAndValuesAreReadInAnyCase() {
    assertThat(Role.of(new MockEnvironment())).isEqualTo(Role.ALL);
    assertThat(Role.of(new MockEnvironment().withProperty("cs.role", " Worker ")))
        .isEqualTo(Role.WORKER);
    assertThat(Role.of(new MockEnvironment().withProperty("cs.role", "api"))).isEqualTo(Role.API);
  }

  @Test
  void anUnknownRoleStopsTheStartWithItsName() {
    assertThatThrownBy(() -> Role.of(new MockEnvironment().withProperty("cs.role", "both")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("CS_ROLE")
        .hasMessageContaining("'both'");
  }

  @Test
  void anApiInstanceKeepsItsWorkersUnstartedAndTheOthersLeaveThemAlone() {
    for (Role role : Role.values()) {
      MockEnvironment environment = new MockEnvironment().withProperty("cs.role", role.name());
      new RoleEnvironment().postProcessEnvironment(environment, new SpringApplication());

      assertThat(environment.getProperty("spring.temporal.start-workers"))
          .as(role.toString())
          .isEqualTo(role == Role.API ? "false" : null);
    }
  }
}
