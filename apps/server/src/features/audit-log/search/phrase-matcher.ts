/**
 * An Aho-Corasick automaton over words: fed a text's words one by one, it reports after each
 * word the longest phrase that ends there, in constant amortized time per word, however many
 * phrases there are and however they overlap. Re-matching every phrase at every word instead
 * costs words × phrases × phrase length, which a hostile query and text make huge.
 */
interface State {
  next: Map<string, State>;
  fail: State | undefined;
  /** Words of the longest phrase that is a suffix of this state's words; 0 if none. */
  longest: number;
}

const newState = (): State => ({ next: new Map(), fail: undefined, longest: 0 });

export class PhraseMatcher {
  private readonly root = newState();
  private state = this.root;

  constructor(phrases: readonly (readonly string[])[]) {
    for (const phrase of phrases) {
      if (phrase.length === 0) continue;
      let state = this.root;
      for (const word of phrase) {
        let child = state.next.get(word);
        if (!child) {
          child = newState();
          state.next.set(word, child);
        }
        state = child;
      }
      state.longest = phrase.length;
    }
    this.link();
  }

  /** Breadth first, so that every state's fail link is set before its children need it. */
  private link(): void {
    const queue: State[] = [];
    for (const child of this.root.next.values()) {
      child.fail = this.root;
      queue.push(child);
    }
    for (let i = 0; i < queue.length; i++) {
      const state = queue[i] as State;
      for (const [word, child] of state.next) {
        let fail = state.fail;
        while (fail && !fail.next.has(word)) fail = fail.fail;
        child.fail = fail?.next.get(word) ?? this.root;
        child.longest = Math.max(child.longest, child.fail.longest);
        queue.push(child);
      }
    }
  }

  get empty(): boolean {
    return this.root.next.size === 0;
  }

  /** Starts a new text. */
  reset(): void {
    this.state = this.root;
  }

  /** Feeds the next word; returns how many words the longest phrase ending here has (0: none). */
  push(word: string): number {
    let state: State | undefined = this.state;
    while (state && !state.next.has(word)) state = state.fail;
    this.state = state?.next.get(word) ?? this.root;
    return this.state.longest;
  }
}
