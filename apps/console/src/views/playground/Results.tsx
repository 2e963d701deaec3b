import {
  decisionLabel,
  decisionSentence,
  type SimulationCheck,
  type SimulationResult,
} from './decision.js';

/** A batch's answers, one row per check; "Why" shows a row's trace below. */
export function Results({
  checks,
  results,
  selected,
  onSelect,
}: {
  checks: SimulationCheck[];
  results: SimulationResult[];
  selected: number;
  onSelect: (index: number) => void;
}) {
  return (
    <table className="grid decisions">
      <caption>Decisions</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Principal</th>
          <th scope="col">Action</th>
          <th scope="col">Resource</th>
          <th scope="col">Decision</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {results.map((result, index) => {
          const check = checks[index];
          return (
            <tr key={index} className={index === selected ? 'selected' : undefined}>
              <td>{index + 1}</td>
              <td className="mono">{check?.principal}</td>
              <td className="mono">{check?.action}</td>
              <td className="mono">{check?.resource}</td>
              <td>
                <span className={`badge ${result.allowed ? 'allow' : 'deny'}`}>
                  {decisionLabel[result.decision]}
                </span>
              </td>
              <td>
                <button
                  type="button"
                  className="secondary"
                  aria-pressed={index === selected}
                  aria-label={`Explain check ${index + 1}: ${decisionSentence(result)}`}
                  onClick={() => onSelect(index)}
                >
                  Explain
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
