import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Attributes,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { RequestHandler } from 'express';

/**
 * W3C trace context and, when an OTLP endpoint is configured, OpenTelemetry traces: one server
 * span per request, named `{method} {route}`, with child spans for what runs inside it.
 */
export interface Tracing {
  /** Whether spans are exported: when not, nothing is wrapped (no cost). */
  enabled: boolean;
  /** First in the request chain: reads `traceparent`, opens the request's span when exporting. */
  middleware: RequestHandler;
  /** `work` in a child span of the current one (a root span outside any); just `work` when off. */
  inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T>;
  /** Sends what is left and stops. */
  shutdown(): Promise<void>;
}

/**
 * The trace id an incoming `traceparent` names, when it is valid (W3C Trace Context: version
 * `ff`, all-zero ids and a version-00 header with extra fields are not).
 */
export function traceIdOfHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parsed = parseTraceParent(header);
  return parsed && isSpanContextValid(parsed) ? parsed.traceId : undefined;
}

/** Without an endpoint: the trace id of `traceparent` for the request's audit entries, nothing else. */
const traceContextOnly: Tracing = {
  enabled: false,
  middleware: (req, res, next) => {
    const traceId = traceIdOfHeader(req.get('traceparent'));
    if (traceId !== undefined) res.locals.traceId = traceId;
    next();
  },
  inSpan: (_name, _attributes, work) => work(),
  shutdown: async () => {},
};

export function createTracing(otlpEndpoint: string | undefined): Tracing {
  if (otlpEndpoint === undefined) return traceContextOnly;
  const provider = new TracerProvider({
    // Not the caller's sampled flag: an outsider must not be able to keep its requests out of
    // the operator's traces with `traceparent: …-00`.
    sampler: new AlwaysOnSampler(),
    resource: resourceFromAttributes({ 'service.name': 'secadmin' }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${otlpEndpoint}/v1/traces` }),
      }),
    ],
  });
  const tracer = provider.getTracer('@secadmin/server');
  // The current span, per async call chain: no global context manager, so that several servers
  // in one process (tests) keep their traces apart.
  const current = new AsyncLocalStorage<Span>();

  return {
    enabled: true,
    middleware: (req, res, next) => {
      const incoming = parseTraceParent(req.get('traceparent') ?? '');
      const parent =
        incoming && isSpanContextValid(incoming)
          ? trace.setSpanContext(ROOT_CONTEXT, { ...incoming, isRemote: true })
          : ROOT_CONTEXT;
      const span = tracer.startSpan(
        req.method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': req.method,
            'url.path': req.path,
            'url.scheme': req.protocol,
          },
        },
        parent,
      );
      res.locals.traceId = span.spanContext().traceId;
      res.once('close', () => {
        const route = res.locals.route as string | undefined;
        if (route !== undefined) {
          span.updateName(`${req.method} ${route}`);
          span.setAttribute('http.route', route);
        }
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      current.run(span, next);
    },
    inSpan: (name, attributes, work) => {
      const parent = current.getStore();
      const span = tracer.startSpan(
        name,
        { attributes },
        parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
      );
      return current.run(span, async () => {
        try {
          return await work();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    shutdown: () => provider.shutdown(),
  };
}
