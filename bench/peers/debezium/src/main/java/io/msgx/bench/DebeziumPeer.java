package io.msgx.bench;

import java.io.BufferedOutputStream;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;

/**
 * Debezium's embedded engine handing every change event to a KafkaProducer configured as msgx's
 * (acks=all, idempotent, one request in flight, no linger), the way Debezium Server's Kafka sink
 * does: a batch is marked processed once the broker acknowledged each of its records.
 *
 * <pre>
 *   java -cp target/classes:$(cat target/classpath.txt) io.msgx.bench.DebeziumPeer \
 *     mode=pg-outbox|mysql-binlog host=127.0.0.1 port=… db=… table=… topic=… brokers=127.0.0.1:9092 [slot=…]
 * </pre>
 *
 * stdout, one line per acknowledged record: {@code ack <id> <handedEpochMicros> <ackEpochMicros>},
 * where id is the first integer of the record's key (the outbox row's aggregate id, the mailbox
 * row's id), handed is when the engine handed the record over and ack when the broker acknowledged
 * it. {@code started} once the engine's task runs; {@code stopped <reason>} when the engine ends.
 * Debezium's own logging goes to stderr. SIGTERM stops the engine and the producer.
 */
public final class DebeziumPeer {
    private static final Pattern FIRST_INTEGER = Pattern.compile("-?\\d+");

    private DebeziumPeer() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String kv : args) {
            int eq = kv.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("expected key=value, got " + kv);
            }
            a.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        String mode = need(a, "mode");
        String topic = need(a, "topic");
        Properties props = switch (mode) {
            case "pg-outbox" -> pgOutbox(a, topic);
            case "mysql-binlog" -> mysqlBinlog(a);
            default -> throw new IllegalArgumentException("mode is pg-outbox or mysql-binlog, not " + mode);
        };
        props.putAll(latencyTuning());

        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false);
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(a.getOrDefault("brokers", "127.0.0.1:9092")));
        ConcurrentLinkedQueue<String> acks = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(1);

        DebeziumEngine<ChangeEvent<String, String>> engine = DebeziumEngine.create(Json.class)
                .using(props)
                .using(new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void taskStarted() {
                        synchronized (out) {
                            out.println("started");
                            out.flush();
                        }
                    }
                })
                .using((success, message, error) -> {
                    synchronized (out) {
                        out.println("stopped " + (success ? "ok" : "failed") + " " + String.valueOf(message).replace('\n', ' '));
                        out.flush();
                    }
                    if (error != null) {
                        error.printStackTrace();
                    }
                    done.countDown();
                })
                .notifying((records, committer) -> {
                    List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
                    for (ChangeEvent<String, String> r : records) {
                        long handed = nowMicros();
                        String key = r.key();
                        String id = firstInteger(key);
                        // The outbox router names the destination; a binlog event goes to the bench's topic.
                        String destination = "pg-outbox".equals(mode) ? r.destination() : topic;
                        sent.add(producer.send(new ProducerRecord<>(destination, key, r.value()), (meta, error) -> {
                            if (error == null) {
                                acks.add("ack " + id + " " + handed + " " + nowMicros());
                            }
                        }));
                    }
                    for (int i = 0; i < sent.size(); i++) {
                        try {
                            sent.get(i).get();
                        }
                        catch (Exception e) {
                            throw new InterruptedException("send failed: " + e);
                        }
                        committer.markProcessed(records.get(i));
                    }
                    committer.markBatchFinished();
                    synchronized (out) {
                        for (String line; (line = acks.poll()) != null;) {
                            out.println(line);
                        }
                        out.flush();
                    }
                })
                .build();

        ExecutorService executor = Executors.newSingleThreadExecutor();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                engine.close();
                done.await();
            }
            catch (Exception e) {
                e.printStackTrace();
            }
            producer.close();
            executor.shutdown();
        }));
        executor.execute(engine);
        done.await();
        producer.close();
        executor.shutdown();
    }

    /** The PostgreSQL connector (pgoutput) on one outbox table, through the outbox event router. */
    private static Properties pgOutbox(Map<String, String> a, String topic) {
        Properties p = common("msgx-peer-pg", "io.debezium.connector.postgresql.PostgresConnector", a, "postgres");
        p.setProperty("database.dbname", a.getOrDefault("db", "postgres"));
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", a.getOrDefault("slot", "msgx_peer"));
        p.setProperty("publication.name", a.getOrDefault("slot", "msgx_peer") + "_pub");
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("table.include.list", need(a, "table"));
        p.setProperty("transforms", "outbox");
        p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        p.setProperty("transforms.outbox.route.topic.replacement", topic);
        return p;
    }

    /** The MySQL connector on one mailbox table of MariaDB, from the binlog. */
    private static Properties mysqlBinlog(Map<String, String> a) {
        Properties p = common("msgx-peer-mysql", "io.debezium.connector.mysql.MySqlConnector", a, "root");
        p.setProperty("database.server.id", a.getOrDefault("server-id", "5401"));
        p.setProperty("database.include.list", need(a, "db"));
        p.setProperty("table.include.list", need(a, "table"));
        p.setProperty("schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
        p.setProperty("include.schema.changes", "false");
        p.setProperty("snapshot.locking.mode", "none");
        return p;
    }

    private static Properties common(String name, String connector, Map<String, String> a, String defaultUser) {
        Properties p = new Properties();
        p.setProperty("name", name);
        p.setProperty("connector.class", connector);
        p.setProperty("database.hostname", a.getOrDefault("host", "127.0.0.1"));
        p.setProperty("database.port", need(a, "port"));
        p.setProperty("database.user", a.getOrDefault("user", defaultUser));
        p.setProperty("database.password", a.getOrDefault("password", ""));
        p.setProperty("topic.prefix", "msgxpeer");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        p.setProperty("converter.schemas.enable", "false");
        // Stream what is committed from now on: no initial copy of the table.
        p.setProperty("snapshot.mode", "no_data");
        return p;
    }

    /**
     * What Debezium's documentation offers for latency (docs/benchmarks.md lists them): the queue
     * hands a batch over when it is full or when the poll interval has passed since the poll began,
     * and the PostgreSQL streaming loop sleeps that long when the replication stream is empty; 1 ms
     * instead of 500 (0 would spin). The batch and queue sizes are the defaults.
     */
    static Map<String, String> latencyTuning() {
        return Map.of(
                "poll.interval.ms", "1",
                "max.batch.size", "2048",
                "max.queue.size", "8192");
    }

    private static Properties producerConfig(String brokers) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    private static String need(Map<String, String> a, String key) {
        String v = a.get(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("missing " + key + "=…");
        }
        return v;
    }

    private static String firstInteger(String key) {
        Matcher m = FIRST_INTEGER.matcher(key == null ? "" : key);
        return m.find() ? m.group() : "?";
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
