package io.msgx.examples;

import com.fasterxml.jackson.databind.JsonNode;
import io.msgx.client.ApiException;
import io.msgx.client.api.TaskApi;
import io.msgx.client.model.PostTaskV1CallbacksBody;
import io.msgx.client.model.PostTaskV1CallbacksBody.ResultEnum;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A task owner (the seed's LMS) written against msgx with the plain Kafka client and the generated
 * client only: it reads its task events from its topic, runs the handler registered for the
 * event's {@code handlerCode}, and for TASK_FINISHED and TASK_CANCELLED reports the result with
 * {@code POST /task/v1/callbacks} (SUCCESS, or FAILURE with the handler's error; an event without
 * a handler is a FAILURE too). TASK_EXECUTING is progress: handled, never reported. An offset is
 * committed only once its event is handled and reported, so a crash redelivers it; the task
 * service takes a repeated callback as the same one (its eventId).
 *
 * <pre>java -cp ... io.msgx.examples.TaskOwner --brokers B --topic T --group G --runner URL --token T</pre>
 *
 * Prints {@code {"ready": true}} once it has its partitions, then one JSON line per event.
 */
public final class TaskOwner {
  /** The owner's handlers by handlerCode: the business change of an event; throws to report FAILURE. */
  private static final Map<String, Function<JsonNode, String>> HANDLERS = Map.of(
      "E2E_MOVE", event -> "moved " + event.path("bizId").asText() + " (" + event.path("eventType").asText() + ")",
      "E2E_REFUSE", event -> {
        throw new IllegalStateException("the business refuses " + event.path("bizId").asText());
      });

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = Msgx.args(argv);
    TaskApi tasks = new TaskApi(Msgx.client(Msgx.required(args, "runner"), Msgx.required(args, "token")));
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Msgx.required(args, "brokers"));
    props.put(ConsumerConfig.GROUP_ID_CONFIG, Msgx.required(args, "group"));
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      // SIGTERM: wake the poll and wait for the loop to close the consumer, so it leaves its group at once.
      Thread loop = Thread.currentThread();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        consumer.wakeup();
        try {
          loop.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
      consumer.subscribe(List.of(Msgx.required(args, "topic")), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          Msgx.print(Map.of("ready", true, "partitions", partitions.size()));
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}
      });
      while (true) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          TopicPartition partition = new TopicPartition(record.topic(), record.partition());
          if (!handle(tasks, record)) {
            // The task service is away: read this record again after a pause, nothing committed.
            consumer.seek(partition, record.offset());
            Thread.sleep(500);
            break;
          }
          consumer.commitSync(Map.of(partition, new OffsetAndMetadata(record.offset() + 1)));
        }
      }
    } catch (org.apache.kafka.common.errors.WakeupException stopping) {
      // The shutdown hook woke the poll: close (the try) leaves the group.
    }
  }

  /** Handles one event and reports it; false when the report must be retried. */
  private static boolean handle(TaskApi tasks, ConsumerRecord<String, String> record) throws Exception {
    JsonNode event = Msgx.JSON.readTree(record.value());
    String type = event.path("eventType").asText();
    String code = event.path("handlerCode").asText();
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("taskId", event.path("taskId").asText());
    line.put("eventId", event.path("eventId").asText());
    line.put("eventType", type);
    line.put("handlerCode", code);
    ResultEnum result;
    String message;
    try {
      Function<JsonNode, String> handler = HANDLERS.get(code);
      if (handler == null) throw new IllegalStateException("no handler for handlerCode " + code);
      message = handler.apply(event);
      result = ResultEnum.SUCCESS;
    } catch (RuntimeException e) {
      message = e.getMessage();
      result = ResultEnum.FAILURE;
    }
    line.put("result", result.getValue());
    if (!type.equals("TASK_EXECUTING")) {
      PostTaskV1CallbacksBody callback = new PostTaskV1CallbacksBody().taskId(event.path("taskId").asText()).eventId(event.path("eventId").asText()).result(result).message(message);
      try {
        line.put("callback", tasks.postTaskV1Callbacks(callback));
      } catch (ApiException e) {
        line.put("refused", Msgx.refusal(e));
        Msgx.print(line);
        // 4xx: the service will never take it (a stale event); 5xx or no answer: try again.
        return e.getCode() >= 400 && e.getCode() < 500;
      }
    }
    Msgx.print(line);
    return true;
  }
}
