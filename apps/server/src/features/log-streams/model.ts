export interface StreamFilter {
  events?: string[];
  origin?: 'service' | 'api';
  result?: 'success' | 'failure';
}

export interface StreamError {
  at: string;
  httpStatus?: number;
  message: string;
}

export interface StreamRow {
  id: string;
  name: string;
  destinationType: 'webhook' | 'splunk_hec';
  url: string;
  splunkIndex: string | null;
  sourcetype: string | null;
  credential: string;
  previousCredential: string | null;
  previousCredentialExpiresAt: Date | null;
  filter: StreamFilter;
  status: 'active' | 'paused' | 'failing' | 'disabled';
  batchSize: number;
  deliveredThroughSeq: number;
  progressVersion: number;
  lastDeliveryAt: Date | null;
  lastError: StreamError | null;
  consecutiveFailures: number;
  attempt: number;
  /** The end of the range in flight: a retry, or a restart, sends the same range again. */
  pendingToSeq: number | null;
  /** The next message's `fromSeq`: one past the last acknowledged message's `toSeq`. */
  rangeStartSeq: number;
  failingSince: Date | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryRow {
  fromSeq: number;
  toSeq: number;
  entries: number;
  attempt: number;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  at: Date;
}
