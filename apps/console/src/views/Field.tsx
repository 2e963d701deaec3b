import { type ReactNode, useId } from 'react';

/** What an input needs to be named by its label and described by its hint and problems. */
export interface FieldInputProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/**
 * A labelled input with its hint and the problems found in it (by the API's 400 or before
 * sending), announced to screen readers and tied to the input by `aria-describedby`.
 */
export function Field({
  label,
  hint,
  problems = [],
  children,
}: {
  label: string;
  hint?: ReactNode;
  problems?: string[];
  children: (input: FieldInputProps) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  const described = [hint ? hintId : '', problems.length > 0 ? problemId : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': problems.length > 0 ? true : undefined,
        'aria-describedby': described || undefined,
      })}
      {hint && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {problems.length > 0 && (
        <p id={problemId} className="field-error" role="alert">
          {problems.join('; ')}
        </p>
      )}
    </div>
  );
}
