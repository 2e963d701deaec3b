import type { Data } from '@secadmin/api-client';

type LogStats = Data<'getLogStats'>;

/** The facets the search syntax can filter on, with the qualifier a click adds. */
export const FACETS = [
  { field: 'event', label: 'Event', qualifier: 'event' },
  { field: 'result', label: 'Result', qualifier: 'result' },
  { field: 'actor.id', label: 'Actor', qualifier: 'actor' },
] as const;

export function Facets({
  facets,
  onPick,
}: {
  facets: NonNullable<LogStats['facets']>;
  onPick: (qualifier: string, value: string) => void;
}) {
  return (
    <aside className="facets" aria-label="Facets">
      {FACETS.map(({ field, label, qualifier }) => {
        const values = facets[field] ?? [];
        return (
          <section key={field}>
            <h2>{label}</h2>
            {values.length === 0 ? (
              <p className="muted">none</p>
            ) : (
              <ul>
                {values.map(({ value, count }) => (
                  <li key={value}>
                    <button
                      type="button"
                      className="facet"
                      onClick={() => onPick(qualifier, value)}
                    >
                      <span className="value">
                        <span className="visually-hidden">Add {qualifier}:</span>
                        {value}
                      </span>{' '}
                      <span className="count">{count.toLocaleString('en')}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </aside>
  );
}
