import type { Response } from 'express';
import type { Handler } from '../../http/index.js';
import { Invalid } from '../../lib/errors.js';
import type { Question } from './entities.js';
import type { EvaluationService } from './evaluation.js';
import type { SearchService } from './search.js';

/** AuthZEN answers in its own shape: no `data` envelope, no `meta` (the header has the id). */
const answer = (res: Response, body: object) => void res.status(200).json(body);

export function authzenHandlers(deps: {
  evaluations: EvaluationService;
  search: SearchService;
  /** `SECADMIN_PUBLIC_URL`, without a trailing slash. */
  publicUrl: string;
}) {
  const { evaluations, search, publicUrl } = deps;
  const evaluateAccess: Handler<'evaluateAccess'> = async ({ body, actor, res }) => {
    answer(res, await evaluations.evaluate(body, actor));
  };
  const evaluateAccessBatch: Handler<'evaluateAccessBatch'> = async ({ body, actor, res }) => {
    if (!body.evaluations?.length) {
      // AuthZEN: without items the request is one evaluation of its top-level fields.
      const { subject, action, resource, context } = body;
      const missing = Object.entries({ subject, action, resource })
        .filter(([, value]) => value === undefined)
        .map(([field]) => ({ field, message: 'is required when evaluations is absent or empty' }));
      if (missing.length > 0) throw new Invalid(missing);
      const question: Question = { subject, action, resource, context } as Question;
      return answer(res, await evaluations.evaluate(question, actor));
    }
    answer(res, { evaluations: await evaluations.evaluateAll(body, actor) });
  };
  const searchSubjects: Handler<'searchSubjects'> = async ({ body, actor, res }) => {
    answer(res, await search.subjects(body, actor));
  };
  const searchResources: Handler<'searchResources'> = async ({ body, actor, res }) => {
    answer(res, await search.resources(body, actor));
  };
  const searchActions: Handler<'searchActions'> = async ({ body, actor, res }) => {
    answer(res, await search.actions(body, actor));
  };
  const getAuthzenConfiguration: Handler<'getAuthzenConfiguration'> = ({ res }) => {
    answer(res, {
      policy_decision_point: publicUrl,
      access_evaluation_endpoint: `${publicUrl}/access/v1/evaluation`,
      access_evaluations_endpoint: `${publicUrl}/access/v1/evaluations`,
      search_subject_endpoint: `${publicUrl}/access/v1/search/subject`,
      search_resource_endpoint: `${publicUrl}/access/v1/search/resource`,
      search_action_endpoint: `${publicUrl}/access/v1/search/action`,
      capabilities: [],
    });
  };
  return {
    evaluateAccess,
    evaluateAccessBatch,
    searchSubjects,
    searchResources,
    searchActions,
    getAuthzenConfiguration,
  };
}
