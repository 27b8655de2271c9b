/**
 * Where the broker put one record: its partition of the topic and its offset in that partition
 * (Kafka's, or the equivalent position of another broker's log). Recorded on the outbox event at
 * mark-sent so lineage can point at the exact record.
 */
export interface DeliveryPlacement {
  readonly partition: number;
  readonly offset: number;
}
