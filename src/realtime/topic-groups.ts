/** Subscribes to one topic upstream; returns the unsubscribe. */
export type Subscribe<E> = (topic: string, listener: (event: E) => void) => () => void;

interface Group<M> {
  /** The topic as first added: streams keep this one string rather than a copy each. */
  readonly topic: string;
  readonly members: Set<M>;
  readonly unsubscribe: () => void;
}

/**
 * Members (open streams) grouped by topic (a project, an API key), with one upstream
 * subscription per topic while it has members: ten thousand streams of one project cost one
 * listener and a Set entry each, not a closure and a listener each.
 */
export class TopicGroups<M, E> {
  readonly #groups = new Map<string, Group<M>>();
  readonly #subscribe: Subscribe<E>;
  readonly #deliver: (members: ReadonlySet<M>, event: E) => void;

  constructor(subscribe: Subscribe<E>, deliver: (members: ReadonlySet<M>, event: E) => void) {
    this.#subscribe = subscribe;
    this.#deliver = deliver;
  }

  /** Adds `member` to the topic's group; returns the group's own copy of `topic`, for the member to keep. */
  add(topic: string, member: M): string {
    let group = this.#groups.get(topic);
    if (group === undefined) {
      const members = new Set<M>();
      const unsubscribe = this.#subscribe(topic, (event) => this.#deliver(members, event));
      group = { topic, members, unsubscribe };
      this.#groups.set(topic, group);
    }
    group.members.add(member);
    return group.topic;
  }

  delete(topic: string, member: M): void {
    const group = this.#groups.get(topic);
    if (group === undefined || !group.members.delete(member) || group.members.size > 0) return;
    this.#groups.delete(topic);
    group.unsubscribe();
  }

  /** How many members the topic has. */
  count(topic: string): number {
    return this.#groups.get(topic)?.members.size ?? 0;
  }

  /** Topics with members: what this node listens to upstream. */
  get topics(): number {
    return this.#groups.size;
  }
}
