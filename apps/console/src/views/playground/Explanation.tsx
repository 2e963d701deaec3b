import {
  decisionLabel,
  decisionSentence,
  policyLabel,
  type SimulationCheck,
  type SimulationResult,
} from './decision.js';

const yesNo = (value: boolean | undefined) =>
  value === undefined ? <span className="muted">not shown</span> : value ? '✓ yes' : '✗ no';

/** One check's decision, the policy that decided it, and why each policy did or did not match. */
export function Explanation({
  check,
  result,
}: {
  check: SimulationCheck;
  result: SimulationResult;
}) {
  const trace = result.explanation ?? [];
  return (
    <article
      className={`decision ${result.allowed ? 'allow' : 'deny'}`}
      aria-labelledby="decision-title"
    >
      <h2 id="decision-title">
        {decisionLabel[result.decision]}: <span className="mono">{check.principal}</span> →{' '}
        <span className="mono">{check.action}</span> on{' '}
        <span className="mono">{check.resource}</span>
      </h2>
      <p className="sentence">{decisionSentence(result)}</p>
      {result.missingContextKeys && result.missingContextKeys.length > 0 && (
        <p>
          The request lacked what some conditions need:{' '}
          {result.missingContextKeys.map((key, i) => (
            <span key={key}>
              {i > 0 && ', '}
              <code>{key}</code>
            </span>
          ))}
          . A condition whose input is missing does not hold.
        </p>
      )}
      {trace.length === 0 ? (
        <p className="muted">No policy was considered.</p>
      ) : (
        <table className="grid trace">
          <caption>Explain trace: every policy considered</caption>
          <thead>
            <tr>
              <th scope="col">Policy</th>
              <th scope="col">Effect</th>
              <th scope="col">Matched</th>
              <th scope="col">Principal</th>
              <th scope="col">Action</th>
              <th scope="col">Resource</th>
              <th scope="col">Conditions</th>
            </tr>
          </thead>
          <tbody>
            {trace.map((item, index) => (
              <tr key={index} className={item.matched ? 'matched' : undefined}>
                <th scope="row">{policyLabel({ id: item.policyId, name: item.policyName })}</th>
                <td>
                  <span className={`badge ${item.effect}`}>{item.effect}</span>
                </td>
                <td>
                  {yesNo(item.matched)}
                  {item.matched &&
                    item.effect === result.effect &&
                    result.decision !== 'implicit_deny' && <strong>, decided</strong>}
                </td>
                <td>{yesNo(item.principal)}</td>
                <td>{yesNo(item.action)}</td>
                <td>{yesNo(item.resource)}</td>
                <td>
                  {item.conditions && Object.keys(item.conditions).length > 0 ? (
                    <ul className="plain">
                      {Object.entries(item.conditions).map(([path, held]) => (
                        <li key={path}>
                          <code>{path}</code> {yesNo(held)}
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">none</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
