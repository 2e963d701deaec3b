import { Component, type ReactNode } from 'react';

/** What a view that throws while rendering shows instead of a blank page. */
export class CrashBoundary extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <section role="alert">
        <h1>This view stopped</h1>
        <p>{this.state.error.message}</p>
        <button type="button" onClick={() => this.setState({ error: undefined })}>
          Try again
        </button>
      </section>
    );
  }
}
