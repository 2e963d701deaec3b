export default function ExportsView() {
  return (
    <section aria-labelledby="exports-title">
      <h1 id="exports-title">Exports</h1>
    </section>
  );
}
