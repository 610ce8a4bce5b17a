/** A change a live event makes to a state (idempotent: it may run on a state that has it). */
export type Change<S> = (state: S) => S;

/** One read of a state from the REST API. */
export interface Read<S> {
  /** The state to show for what the API answered: the live changes that arrived while it was
   * read replayed on it, or `null` when a read begun later has been shown already. */
  settle(answer: S): S | null;
  /** Stop recording changes for this read (call it whether it succeeded or not). */
  end(): void;
}

/**
 * Keeps a state read from the API (the Kins' list, a task) from taking back what live events
 * said meanwhile: the server may have read it before an event that reaches the browser before
 * its answer (a Kin shown idle again while it thinks, so without its Stop button), and of two
 * reads under way the older may answer last.
 */
export class LiveReads<S> {
  private readonly reading = new Set<Change<S>[]>();
  private begun = 0;
  private shown = 0;

  /** Record a live event's change for the reads under way; returns it, to apply it now. */
  change(change: Change<S>): Change<S> {
    for (const changes of this.reading) changes.push(change);
    return change;
  }

  /** Begin a read: the changes from now on are replayed on its answer. */
  read(): Read<S> {
    const order = ++this.begun;
    const changes: Change<S>[] = [];
    this.reading.add(changes);
    return {
      settle: (answer) => {
        this.reading.delete(changes);
        if (order < this.shown) return null;
        this.shown = order;
        return changes.reduce((state, change) => change(state), answer);
      },
      end: () => void this.reading.delete(changes),
    };
  }
}
