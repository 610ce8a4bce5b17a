/** A change a live event makes to a list (idempotent: it may run on a list that has it). */
export type ListChange<T> = (list: T[]) => T[];

/** A list read from the REST API while live events keep changing it. */
export interface ListRead<T> {
  /** The list to show for what the API answered: the live changes that arrived while it was
   * read replayed on it, or `null` when a read begun later has been shown already. */
  settle(answer: T[]): T[] | null;
  /** Stop recording changes for this read (call it whether it succeeded or not). */
  end(): void;
}

/**
 * Keeps a list read from the API from taking back what live events said meanwhile: the
 * server may have read it before an event that reaches the browser before its answer (a Kin
 * shown idle again while it thinks, so without its Stop button).
 */
export class LiveList<T> {
  private readonly reading = new Set<ListChange<T>[]>();
  private begun = 0;
  private shown = 0;

  /** Record a live event's change for the reads under way; returns it, to apply it now. */
  change(change: ListChange<T>): ListChange<T> {
    for (const changes of this.reading) changes.push(change);
    return change;
  }

  /** Begin a read: the changes from now on are replayed on its answer. */
  read(): ListRead<T> {
    const order = ++this.begun;
    const changes: ListChange<T>[] = [];
    this.reading.add(changes);
    return {
      settle: (answer) => {
        this.reading.delete(changes);
        if (order < this.shown) return null;
        this.shown = order;
        return changes.reduce((list, change) => change(list), answer);
      },
      end: () => void this.reading.delete(changes),
    };
  }
}
