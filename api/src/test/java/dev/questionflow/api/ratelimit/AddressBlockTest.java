package dev.questionflow.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An IPv6 client by its /64, everything else as it is, and never a DNS lookup. */
class AddressBlockTest {

  @Test
  void ipv6AddressesOfOneSlash64AreOneBlock() {
    assertThat(AddressBlock.of("2001:db8:1:2::a")).isEqualTo("2001:db8:1:2::/64");
    assertThat(AddressBlock.of("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff"))
        .isEqualTo("2001:db8:1:2::/64");
    assertThat(AddressBlock.of("[2001:db8:1:2::b]")).isEqualTo("2001:db8:1:2::/64");
    assertThat(AddressBlock.of("2001:db8:1:3::a")).isEqualTo("2001:db8:1:3::/64");
    assertThat(AddressBlock.of("::1")).isEqualTo("0:0:0:0::/64");
  }

  @Test
  void ipv4StaysOneAddressAlsoWhenMappedIntoIpv6() {
    assertThat(AddressBlock.of("203.0.113.7")).isEqualTo("203.0.113.7");
    assertThat(AddressBlock.of("::ffff:203.0.113.7")).isEqualTo("203.0.113.7");
  }

  @Test
  void whatIsNoAddressIsReturnedAsItIs() {
    assertThat(AddressBlock.of("unknown")).isEqualTo("unknown");
    assertThat(AddressBlock.of("zz:zz")).isEqualTo("zz:zz");
    assertThat(AddressBlock.of("abc:def")).isEqualTo("abc:def");
    assertThat(AddressBlock.of(null)).isNull();
  }
}
