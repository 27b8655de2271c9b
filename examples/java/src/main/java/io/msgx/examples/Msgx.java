package io.msgx.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.msgx.client.ApiClient;
import io.msgx.client.ApiException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/** What both example services share: the generated client pointed at a runner, their arguments and their JSON lines. */
final class Msgx {
  static final ObjectMapper JSON = new ObjectMapper();

  private Msgx() {}

  /**
   * The generated client for the runner at {@code baseUrl}: every request carries the scope's
   * bearer token (the document says which routes need it; sending it to the others does no harm).
   */
  static ApiClient client(String baseUrl, String token) {
    ApiClient client = new ApiClient();
    client.updateBaseUri(URI.create(baseUrl).toString().replaceAll("/+$", ""));
    client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token));
    return client;
  }

  /** {@code --name value} pairs. */
  static Map<String, String> args(String[] argv) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      if (!argv[i].startsWith("--")) throw new IllegalArgumentException("expected --name value, got " + argv[i]);
      out.put(argv[i].substring(2), argv[i + 1]);
    }
    return out;
  }

  static String required(Map<String, String> args, String name) {
    String v = args.get(name);
    if (v == null) throw new IllegalArgumentException("--" + name + " is required");
    return v;
  }

  /** One JSON line on stdout: how the e2e test reads what the service did. */
  static synchronized void print(Map<String, ?> line) {
    try {
      System.out.println(JSON.writeValueAsString(line));
      System.out.flush();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A refusal as a JSON-able map: the status and the runner's error body ({@code {error, message, code?}}). */
  static Map<String, Object> refusal(ApiException e) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", e.getCode());
    out.put("body", e.getResponseBody());
    return out;
  }
}
