package dev.questionflow.api.ratelimit;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The block of addresses one client is counted by: an IPv4 address alone, an IPv6 address by its
 * /64 (a home or phone subscriber is given a whole /64 and may pick any address in it, so a cap per
 * /128 is no cap at all).
 */
public final class AddressBlock {

  private AddressBlock() {}

  /**
   * {@code 2001:db8:1:2::a} and {@code 2001:db8:1:2:ffff::1} give {@code 2001:db8:1:2::/64}; an
   * IPv4 address (also IPv4-mapped IPv6) and anything that is no IP literal are returned as they
   * are.
   */
  public static String of(String address) {
    if (address == null || address.indexOf(':') < 0 || !literalStart(address.charAt(0))) {
      return address; // IPv4, or no address at all: never resolved as a host name
    }
    InetAddress parsed;
    try {
      // starting so and with a ':', the JDK parses it as an IPv6 literal and never asks DNS
      parsed = InetAddress.getByName(address);
    } catch (UnknownHostException | SecurityException e) {
      return address;
    }
    if (!(parsed instanceof Inet6Address)) {
      return parsed.getHostAddress(); // ::ffff:203.0.113.7 is the IPv4 client 203.0.113.7
    }
    byte[] bytes = parsed.getAddress();
    StringBuilder block = new StringBuilder();
    for (int group = 0; group < 4; group++) {
      int value = ((bytes[2 * group] & 0xff) << 8) | (bytes[2 * group + 1] & 0xff);
      block.append(Integer.toHexString(value)).append(':');
    }
    return block.append(":/64").toString();
  }

  private static boolean literalStart(char c) {
    return c == ':'
        || c == '['
        || (c >= '0' && c <= '9')
        || (c >= 'a' && c <= 'f')
        || (c >= 'A' && c <= 'F');
  }
}
