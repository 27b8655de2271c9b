package io.msgx.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.msgx.client.ApiException;
import io.msgx.client.api.RmApi;
import io.msgx.client.model.PostRmV1MessagesBody;
import io.msgx.client.model.PostRmV1MessagesByIdConfirmBody;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A producer of reliable messages (the seed's payment service) written against msgx with the
 * generated client only: for each order it prepares the message, commits its business change, then
 * confirms; and it answers msgx's check-back for a message whose producer never said how it ended
 * (crashed between its commit and the confirm): "confirm" when the order committed, "cancel" when
 * it rolled back, "unknown" otherwise. Its business table is a map here; a real service reads its
 * database in the check-back.
 *
 * <pre>java -cp ... io.msgx.examples.Producer --queue Q --token T --checker-token CT [--port P]</pre>
 *
 * It listens first (msgx's configuration names the check-back URL {@code <url>/check/<queue>}) and
 * prints {@code {"checker": "<url>"}}; then it reads commands, one JSON object a line, on stdin:
 * {@code {"runner": "<msgx url>"}}, then {@code {"order": "<id>", "outcome": "commit" |
 * "commit-then-crash" | "rollback-then-crash"}}. It prints one JSON line per order and per
 * check-back call.
 */
public final class Producer {
  enum Order { COMMITTED, ROLLED_BACK }

  private final Map<String, Order> orders = new ConcurrentHashMap<>();
  private final String queue;
  private final String token;
  private final String checkerToken;
  private RmApi rm;

  private Producer(String queue, String token, String checkerToken) {
    this.queue = queue;
    this.token = token;
    this.checkerToken = checkerToken;
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = Msgx.args(argv);
    Producer producer = new Producer(Msgx.required(args, "queue"), Msgx.required(args, "token"), Msgx.required(args, "checker-token"));
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args.getOrDefault("port", "0"))), 0);
    server.createContext("/check/", producer::checkBack);
    server.start();
    Msgx.print(Map.of("checker", "http://127.0.0.1:" + server.getAddress().getPort()));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      JsonNode command = Msgx.JSON.readTree(line);
      if (command.has("runner")) producer.rm = new RmApi(Msgx.client(command.get("runner").asText(), producer.token));
      else producer.order(command.get("order").asText(), command.get("outcome").asText());
    }
    server.stop(0);
  }

  /** prepare → the business transaction → confirm (or, for the crash outcomes, nothing more: check-back settles it). */
  private void order(String id, String outcome) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("order", id);
    line.put("outcome", outcome);
    try {
      PostRmV1MessagesBody draft = new PostRmV1MessagesBody().messageId(id).queue(queue).body(Map.of("orderId", id, "amount", 42)).putHeadersItem("source", "java-producer");
      line.put("prepared", rm.postRmV1Messages(draft, null));
      switch (outcome) {
        case "commit" -> {
          orders.put(id, Order.COMMITTED);
          line.put("confirmed", rm.postRmV1MessagesByIdConfirm(id, new PostRmV1MessagesByIdConfirmBody()));
        }
        case "commit-then-crash" -> orders.put(id, Order.COMMITTED);
        case "rollback-then-crash" -> orders.put(id, Order.ROLLED_BACK);
        default -> throw new IllegalArgumentException("unknown outcome " + outcome);
      }
    } catch (ApiException e) {
      line.put("refused", Msgx.refusal(e));
    }
    Msgx.print(line);
  }

  /** {@code POST /check/<queue>} with {@code {messageId, …}}: the order's fate as a verdict; 401 without msgx's checker token. */
  private void checkBack(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!("Bearer " + checkerToken).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        reply(exchange, 401, Map.of("error", "unauthorized"));
        return;
      }
      JsonNode request = Msgx.JSON.readTree(exchange.getRequestBody());
      String id = request.path("messageId").asText();
      Order order = orders.get(id);
      String verdict = order == Order.COMMITTED ? "confirm" : order == Order.ROLLED_BACK ? "cancel" : "unknown";
      Msgx.print(Map.of("checkBack", id, "checkCount", request.path("checkCount").asInt(), "verdict", verdict));
      reply(exchange, 200, Map.of("verdict", verdict));
    }
  }

  private static void reply(HttpExchange exchange, int status, Map<String, String> body) throws IOException {
    byte[] bytes = Msgx.JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
