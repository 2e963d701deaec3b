/** Who made a request: the key and its principal, and where it came from. */
export interface RequestActor {
  keyId: string;
  principal: string;
  isRoot: boolean;
  ip: string | undefined;
  userAgent: string | undefined;
  /** The W3C trace the request belongs to: its audit entries carry the id. */
  traceId?: string;
  /** The protocol the change came through, when not `/v1` (audit `metadata.via`). */
  via?: 'scim';
}
