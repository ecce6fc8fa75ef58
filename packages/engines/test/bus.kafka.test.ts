// The Kafka engine's wiring against a fake kafkajs client (no broker needed). The engine's
// behaviour against a real broker is covered by bus.contract.test.ts when Kafka is available.
import {
  logLevel,
  Partitioners,
  type ConsumerConfig,
  type ConsumerRunConfig,
  type ConsumerSubscribeTopics,
  type EachMessagePayload,
  type KafkaConfig,
  type KafkaMessage,
  type ProducerConfig,
  type ProducerRecord,
  type ITopicConfig,
  type TopicPartitionOffsetAndMetadata,
} from 'kafkajs';
import pino from 'pino';
import { BusHandlerError, createKafkaBus, decodeHeaders, kafkaLogCreator } from '../src/bus/kafka';
import type { DeliveredMessage, EventBus } from '@vrp/platform/bus';

jest.mock('kafkajs', () => {
  const actual = jest.requireActual<typeof import('kafkajs')>('kafkajs');
  return { ...actual, Kafka: jest.fn((config: KafkaConfig) => mockCreateKafka(config)) };
});

type Listener = (event: { id: number; type: string; timestamp: number; payload: unknown }) => void;

class FakeConsumer {
  readonly events = {
    GROUP_JOIN: 'consumer.group_join',
    FETCH_START: 'consumer.fetch_start',
    FETCH: 'consumer.fetch',
    CRASH: 'consumer.crash',
  } as const;
  readonly listeners = new Map<string, Set<Listener>>();
  runConfig: ConsumerRunConfig | undefined;
  readonly connect = jest.fn(async () => undefined);
  readonly subscribe = jest.fn(async (_topics: ConsumerSubscribeTopics) => undefined);
  readonly run = jest.fn(async (config: ConsumerRunConfig) => {
    this.runConfig = config;
  });
  readonly commitOffsets = jest.fn(async (_offsets: TopicPartitionOffsetAndMetadata[]) => undefined);
  readonly disconnect = jest.fn(async () => undefined);

  constructor(readonly config: ConsumerConfig) {}

  on(type: string, listener: Listener): () => void {
    const set = this.listeners.get(type) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(type, set);
    return () => set.delete(listener);
  }

  emit(type: string, payload: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener({ id: 1, type, timestamp: Date.now(), payload });
  }

  deliver(topic: string, partition: number, message: KafkaMessage): Promise<void> {
    const eachMessage = this.runConfig?.eachMessage;
    if (!eachMessage) throw new Error('consumer is not running');
    const payload: EachMessagePayload = { topic, partition, message, heartbeat: async () => undefined, pause: () => () => undefined };
    return eachMessage(payload);
  }
}

class FakeKafka {
  readonly producerConfigs: ProducerConfig[] = [];
  readonly consumers: FakeConsumer[] = [];
  readonly producer = {
    connect: jest.fn(async () => undefined),
    send: jest.fn(async (_record: ProducerRecord) => []),
    disconnect: jest.fn(async () => undefined),
  };
  readonly admin = {
    connect: jest.fn(async () => undefined),
    listTopics: jest.fn(async (): Promise<string[]> => []),
    createTopics: jest.fn(async (_args: { topics: ITopicConfig[]; waitForLeaders?: boolean }) => true),
    fetchTopicOffsets: jest.fn(async (_topic: string): Promise<Array<{ partition: number; offset: string; high: string; low: string }>> => []),
    fetchOffsets: jest.fn(
      async (_args: { groupId: string; topics?: string[] }): Promise<Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>> => [],
    ),
    describeCluster: jest.fn(async () => ({ brokers: [], controller: 1, clusterId: 'c' })),
    disconnect: jest.fn(async () => undefined),
  };

  constructor(readonly config: KafkaConfig) {}

  client(): object {
    return {
      producer: (config: ProducerConfig) => {
        this.producerConfigs.push(config);
        return this.producer;
      },
      consumer: (config: ConsumerConfig) => {
        const consumer = new FakeConsumer(config);
        this.consumers.push(consumer);
        return consumer;
      },
      admin: () => this.admin,
    };
  }
}

let fake: FakeKafka;
function mockCreateKafka(config: KafkaConfig): object {
  fake = new FakeKafka(config);
  return fake.client();
}

function kafkaMessage(offset: string, fields: Partial<KafkaMessage> = {}): KafkaMessage {
  return {
    key: Buffer.from('listing-1'),
    value: Buffer.from('payload'),
    timestamp: '1700000000000',
    attributes: 0,
    offset,
    headers: {},
    ...fields,
  } as KafkaMessage;
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function state<T>(promise: Promise<T>): { settled: () => string } {
  let s = 'pending';
  promise.then(
    () => (s = 'resolved'),
    () => (s = 'rejected'),
  );
  return { settled: () => s };
}

const consumerAt = (i: number): FakeConsumer => {
  const consumer = fake.consumers[i];
  if (!consumer) throw new Error(`no consumer #${i}`);
  return consumer;
};

describe('kafka bus (fake kafkajs)', () => {
  let bus: EventBus;
  beforeEach(() => {
    bus = createKafkaBus({ brokers: ['b1:9092', 'b2:9092'], clientId: 'svc' });
  });
  afterEach(async () => {
    await bus.close();
  });

  it('configures the client and an idempotent producer, connecting it once, lazily', async () => {
    expect(fake.config).toMatchObject({ clientId: 'svc', brokers: ['b1:9092', 'b2:9092'] });
    expect(fake.producerConfigs).toEqual([{ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner }]);
    expect(fake.producer.connect).not.toHaveBeenCalled();

    const value = new Uint8Array([0, 1, 2, 255]);
    await Promise.all([
      bus.publish('t', [{ key: 'k1', value, headers: { a: 'b' } }]),
      bus.publish('t', [{ key: 'k2', value: new Uint8Array(new ArrayBuffer(8), 2, 3) }]),
    ]);
    await bus.publish('t', []);
    expect(fake.producer.connect).toHaveBeenCalledTimes(1);
    expect(fake.producer.send).toHaveBeenCalledTimes(2);
    const first = fake.producer.send.mock.calls[0]?.[0];
    expect(first).toMatchObject({ topic: 't', acks: -1 });
    expect(first?.messages[0]).toEqual({ key: 'k1', value: Buffer.from([0, 1, 2, 255]), headers: { a: 'b' } });
    expect(Buffer.isBuffer(first?.messages[0]?.value)).toBe(true);
    expect(fake.producer.send.mock.calls[1]?.[0].messages[0]?.value).toEqual(Buffer.alloc(3));
  });

  it('retries the producer connection after a failed connect', async () => {
    fake.producer.connect.mockRejectedValueOnce(new Error('down'));
    await expect(bus.publish('t', [{ key: 'k', value: new Uint8Array(1) }])).rejects.toThrow('down');
    await bus.publish('t', [{ key: 'k', value: new Uint8Array(1) }]);
    expect(fake.producer.connect).toHaveBeenCalledTimes(2);
    expect(fake.producer.send).toHaveBeenCalledTimes(1);
  });

  it('creates only missing topics, one by one, with partitions, replication, min.insync.replicas and cleanup.policy', async () => {
    fake.admin.listTopics.mockResolvedValueOnce(['exists', '__consumer_offsets']);
    fake.admin.createTopics.mockResolvedValueOnce(false).mockRejectedValueOnce(
      // another replica created it between the list and the create: not an error
      Object.assign(new Error('aggregate'), { errors: [Object.assign(new Error('exists'), { type: 'TOPIC_ALREADY_EXISTS' })] }),
    );
    await bus.ensureTopics([
      { name: 'a', partitions: 3 },
      { name: 'exists', partitions: 3 },
      { name: 'b', partitions: 6, compacted: true },
      { name: 'c', partitions: 1 },
    ]);
    const settings = (policy: string) => [
      { name: 'cleanup.policy', value: policy },
      { name: 'min.insync.replicas', value: '2' },
    ];
    expect(fake.admin.createTopics.mock.calls.map((c) => c[0])).toEqual([
      { topics: [{ topic: 'a', numPartitions: 3, replicationFactor: 3, configEntries: settings('delete') }], waitForLeaders: true },
      { topics: [{ topic: 'b', numPartitions: 6, replicationFactor: 3, configEntries: settings('compact') }], waitForLeaders: true },
      { topics: [{ topic: 'c', numPartitions: 1, replicationFactor: 3, configEntries: settings('delete') }], waitForLeaders: true },
    ]);
    fake.admin.createTopics.mockClear();
    fake.admin.listTopics.mockResolvedValueOnce(['a', 'b', 'c']);
    await bus.ensureTopics([
      { name: 'a', partitions: 3 },
      { name: 'b', partitions: 6, compacted: true },
    ]);
    expect(fake.admin.createTopics).not.toHaveBeenCalled(); // a normal boot asks the broker for nothing it would refuse
    fake.admin.createTopics.mockRejectedValueOnce(Object.assign(new Error('denied'), { type: 'TOPIC_AUTHORIZATION_FAILED' }));
    await expect(bus.ensureTopics([{ name: 'd', partitions: 1 }])).rejects.toThrow('denied');
  });

  it('subscribes a consumer per subscription, with manual commits', async () => {
    await bus.subscribe({ groupId: 'g1', topics: ['t1', 't2'], fromBeginning: true, handler: async () => undefined });
    const consumer = consumerAt(0);
    expect(consumer.config).toMatchObject({ groupId: 'g1' });
    expect(consumer.connect).toHaveBeenCalled();
    expect(consumer.subscribe).toHaveBeenCalledWith({ topics: ['t1', 't2'], fromBeginning: true });
    expect(consumer.run).toHaveBeenCalledWith(expect.objectContaining({ autoCommit: false }));
  });

  it('is ready after the group join and the first fetch after it (the start offsets are resolved then)', async () => {
    const sub = await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: false, handler: async () => undefined });
    const ready = state(sub.ready);
    const consumer = consumerAt(0);
    consumer.emit(consumer.events.FETCH_START, { nodeId: 1 });
    consumer.emit(consumer.events.GROUP_JOIN, { groupId: 'g', memberAssignment: { t: [0, 1, 2] } });
    consumer.emit(consumer.events.FETCH, { nodeId: 1, duration: 1, numberOfBatches: 0 }); // started before the join
    await flush();
    expect(ready.settled()).toBe('pending');
    consumer.emit(consumer.events.FETCH_START, { nodeId: 2 });
    consumer.emit(consumer.events.FETCH, { nodeId: 2, duration: 1, numberOfBatches: 0 });
    await flush();
    expect(ready.settled()).toBe('resolved');
    // Only the crash listener stays (it drives health()).
    expect([...consumer.listeners.entries()].filter(([, set]) => set.size > 0).map(([type]) => type)).toEqual([consumer.events.CRASH]);
  });

  it('rejects ready when the consumer crashes for good before joining', async () => {
    const sub = await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: async () => undefined });
    const consumer = consumerAt(0);
    consumer.emit(consumer.events.CRASH, { error: new Error('restarting'), groupId: 'g', restart: true });
    await flush();
    expect(state(sub.ready).settled()).toBe('pending');
    consumer.emit(consumer.events.CRASH, { error: new Error('fatal'), groupId: 'g', restart: false });
    await expect(sub.ready).rejects.toThrow('fatal');
  });

  it('delivers converted messages and commits offset + 1 after the handler resolves', async () => {
    const received: DeliveredMessage[] = [];
    let committedBeforeHandlerDone = false;
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      handler: async (m) => {
        const commits = consumerAt(0).commitOffsets.mock.calls.length;
        await flush();
        if (consumerAt(0).commitOffsets.mock.calls.length !== commits) committedBeforeHandlerDone = true;
        received.push(m);
      },
    });
    const consumer = consumerAt(0);
    await consumer.deliver(
      't',
      2,
      kafkaMessage('9007199254740993', {
        headers: { s: 'str', b: Buffer.from('héllo'), multi: [Buffer.from('one'), 'two'], none: undefined },
      }),
    );
    await consumer.deliver('t', 2, kafkaMessage('5', { key: null, value: null }));
    expect(committedBeforeHandlerDone).toBe(false);
    expect(consumer.commitOffsets.mock.calls).toEqual([
      [[{ topic: 't', partition: 2, offset: '9007199254740994' }]],
      [[{ topic: 't', partition: 2, offset: '6' }]],
    ]);
    const [first, second] = received;
    expect(first).toMatchObject({ topic: 't', partition: 2, offset: '9007199254740993', timestamp: '1700000000000', key: 'listing-1' });
    expect(first?.headers).toEqual({ s: 'str', b: 'héllo', multi: 'two' });
    expect(Buffer.isBuffer(first?.value)).toBe(false);
    expect(Buffer.from(first?.value ?? []).toString()).toBe('payload');
    expect(second).toMatchObject({ key: '', headers: {} });
    expect(second?.value).toHaveLength(0);
  });

  it('does not commit when the handler throws and hands kafkajs a retriable error (even for a TypeError)', async () => {
    const cause = new TypeError('boom');
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      handler: async () => {
        throw cause;
      },
    });
    const consumer = consumerAt(0);
    const error: unknown = await consumer.deliver('t', 0, kafkaMessage('7')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BusHandlerError);
    expect(error).toMatchObject({ name: 'BusHandlerError', retriable: true, cause, topic: 't', partition: 0, offset: '7' });
    expect(consumer.commitOffsets).not.toHaveBeenCalled();
  });

  it('stop() waits for the in-flight handler and its commit, skips later messages, then disconnects', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handled: string[] = [];
    const sub = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      handler: async (m) => {
        if (m.offset === '0') await gate;
        handled.push(m.offset);
      },
    });
    const consumer = consumerAt(0);
    const inFlight = consumer.deliver('t', 0, kafkaMessage('0'));
    await flush();
    const stopping = state(sub.stop());
    await flush();
    expect(consumer.disconnect).not.toHaveBeenCalled();
    await consumer.deliver('t', 1, kafkaMessage('3')); // handed out while stopping: skipped
    release();
    await inFlight;
    await flush();
    expect(stopping.settled()).toBe('resolved');
    expect(handled).toEqual(['0']);
    expect(consumer.commitOffsets.mock.calls).toEqual([[[{ topic: 't', partition: 0, offset: '1' }]]]);
    expect(consumer.disconnect).toHaveBeenCalledTimes(1);
    await expect(sub.ready).rejects.toThrow(/stopped before it was ready/);
    await sub.stop();
    expect(consumer.disconnect).toHaveBeenCalledTimes(1);
  });

  it('disconnects the consumer when subscribing fails', async () => {
    const subscribing = bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: async () => undefined });
    consumerAt(0).subscribe.mockRejectedValueOnce(new Error('no such topic'));
    await expect(subscribing).rejects.toThrow('no such topic');
    expect(consumerAt(0).disconnect).toHaveBeenCalled();
    expect(consumerAt(0).run).not.toHaveBeenCalled();
  });

  it('ready() reports the cluster health; close() stops consumers and disconnects what was connected', async () => {
    await expect(bus.ready()).resolves.toBe(true);
    fake.admin.describeCluster.mockRejectedValueOnce(new Error('unreachable'));
    await expect(bus.ready()).resolves.toBe(false);
    await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: async () => undefined });
    await bus.close();
    expect(consumerAt(0).disconnect).toHaveBeenCalled();
    expect(fake.admin.disconnect).toHaveBeenCalled();
    expect(fake.producer.disconnect).not.toHaveBeenCalled(); // never connected
    await expect(bus.ready()).resolves.toBe(false);
    await expect(bus.publish('t', [{ key: 'k', value: new Uint8Array(1) }])).rejects.toThrow(/closed/);
  });
});

describe('kafka bus (fake kafkajs): topic settings, health and lag', () => {
  let bus: EventBus;
  afterEach(async () => {
    await bus.close();
  });

  it('uses the configured replication factor and min.insync.replicas, and refuses a min ISR above it', async () => {
    bus = createKafkaBus({ brokers: ['b1:9092'], clientId: 'svc', replicationFactor: 1, minInsyncReplicas: 1 });
    await bus.ensureTopics([{ name: 'one', partitions: 2 }]);
    expect(fake.admin.createTopics.mock.calls[0]?.[0].topics).toEqual([
      {
        topic: 'one',
        numPartitions: 2,
        replicationFactor: 1,
        configEntries: [
          { name: 'cleanup.policy', value: 'delete' },
          { name: 'min.insync.replicas', value: '1' },
        ],
      },
    ]);
    expect(() => createKafkaBus({ brokers: ['b1:9092'], clientId: 'svc', replicationFactor: 2, minInsyncReplicas: 3 })).toThrow(/minInsyncReplicas/);
  });

  it('a subscription reports running until stop(), and not running after a crash kafkajs does not restart', async () => {
    bus = createKafkaBus({ brokers: ['b1:9092'], clientId: 'svc' });
    const sub = await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: async () => undefined });
    const consumer = fake.consumers[0]!;
    expect(sub.health()).toEqual({ running: true });
    consumer.emit(consumer.events.CRASH, { error: new Error('rebalance failed'), groupId: 'g', restart: true });
    expect(sub.health()).toEqual({ running: true }); // kafkajs restarts it
    consumer.emit(consumer.events.CRASH, { error: new Error('not authorized'), groupId: 'g', restart: false });
    expect(sub.health()).toEqual({ running: false, reason: 'consumer crashed: not authorized' });

    const other = await bus.subscribe({ groupId: 'h', topics: ['t'], fromBeginning: true, handler: async () => undefined });
    await other.stop();
    expect(other.health()).toEqual({ running: false, reason: 'stopped' });
  });

  it('consumer lag = high watermark minus committed offset (low watermark when nothing is committed), per group and topic', async () => {
    bus = createKafkaBus({ brokers: ['b1:9092'], clientId: 'svc' });
    await expect(bus.consumerLag()).resolves.toEqual([]);
    await bus.subscribe({ groupId: 'g', topics: ['t', 'u'], fromBeginning: true, handler: async () => undefined });
    fake.admin.fetchTopicOffsets.mockImplementation(async (topic: string) =>
      topic === 't'
        ? [
            { partition: 0, offset: '10', high: '10', low: '0' },
            { partition: 1, offset: '7', high: '7', low: '2' },
          ]
        : [{ partition: 0, offset: '5', high: '5', low: '0' }],
    );
    fake.admin.fetchOffsets.mockResolvedValue([
      {
        topic: 't',
        partitions: [
          { partition: 0, offset: '4' },
          { partition: 1, offset: '-1' },
        ],
      },
      { topic: 'u', partitions: [{ partition: 0, offset: '5' }] },
    ]);
    await expect(bus.consumerLag()).resolves.toEqual([
      { groupId: 'g', topic: 't', lag: 6 + 5 },
      { groupId: 'g', topic: 'u', lag: 0 },
    ]);
    expect(fake.admin.fetchOffsets).toHaveBeenCalledWith({ groupId: 'g', topics: ['t', 'u'] });
  });

  it('a lag query that hangs fails after healthTimeoutMs instead of holding /metrics', async () => {
    bus = createKafkaBus({ brokers: ['b1:9092'], clientId: 'svc', healthTimeoutMs: 20 });
    await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: async () => undefined });
    fake.admin.fetchTopicOffsets.mockImplementation(() => new Promise(() => undefined));
    await expect(bus.consumerLag()).rejects.toThrow(/timed out after 20ms/);
  });
});

describe('kafkajs log lines', () => {
  // kafkajs's own error table: the messages the broker's answers are logged with.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { errorCodes } = require('kafkajs/src/protocol/error') as { errorCodes: Array<{ type: string; message: string }> };
  const messageOf = (type: string): string => {
    const found = errorCodes.find((e) => e.type === type);
    if (!found) throw new Error(`kafkajs has no error ${type}`);
    return found.message;
  };

  function capture(): { lines: Array<{ level: number; msg: string; kafkajs?: string }>; log: (level: number, message: string, extra?: object) => void } {
    const lines: Array<{ level: number; msg: string; kafkajs?: string }> = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const creator = kafkaLogCreator(logger)(logLevel.DEBUG);
    return {
      lines,
      log: (level, message, extra = {}) =>
        creator({ namespace: 'Connection', level, label: 'ERROR', log: { timestamp: new Date().toISOString(), message, ...extra } }),
    };
  }

  it('logs routine broker answers of a healthy cluster (rebalance, coordinator or leader moving, topic just created) as warnings', () => {
    const { lines, log } = capture();
    for (const type of [
      'REBALANCE_IN_PROGRESS',
      'GROUP_COORDINATOR_NOT_AVAILABLE',
      'NOT_COORDINATOR_FOR_GROUP',
      'GROUP_LOAD_IN_PROGRESS',
      'LEADER_NOT_AVAILABLE',
      'TOPIC_ALREADY_EXISTS',
    ]) {
      log(logLevel.ERROR, 'Response JoinGroup(key: 11, version: 5)', { error: messageOf(type) });
    }
    log(logLevel.ERROR, 'The group is rebalancing, re-joining', { groupId: 'g' });
    expect(lines.map((l) => l.level)).toEqual(Array(7).fill(40)); // pino warn
    expect(lines[0]).toMatchObject({ kafkajs: 'Connection', msg: 'Response JoinGroup(key: 11, version: 5)' });
  });

  it('keeps real failures at error and maps the other levels', () => {
    const { lines, log } = capture();
    log(logLevel.ERROR, 'Response Produce(key: 0, version: 7)', { error: messageOf('NOT_ENOUGH_REPLICAS') });
    log(logLevel.ERROR, 'Response SaslAuthenticate(key: 36, version: 1)', { error: messageOf('SASL_AUTHENTICATION_FAILED') });
    log(logLevel.WARN, 'w');
    log(logLevel.INFO, 'i');
    log(logLevel.DEBUG, 'd');
    expect(lines.map((l) => l.level)).toEqual([50, 50, 40, 30, 20]);
  });
});

describe('decodeHeaders', () => {
  it('turns Buffer, string and repeated header values into strings', () => {
    expect(decodeHeaders(undefined)).toEqual({});
    expect(decodeHeaders({ a: Buffer.from('x'), b: 'y', c: ['1', Buffer.from('2')], d: undefined, e: [] })).toEqual({
      a: 'x',
      b: 'y',
      c: '2',
    });
  });
});
