export default function AuditLogView() {
  return (
    <section aria-labelledby="audit-log-title">
      <h1 id="audit-log-title">Audit log</h1>
    </section>
  );
}
