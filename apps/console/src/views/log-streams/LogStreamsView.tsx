import { useLocation } from '../../shell/location.js';
import '../views.css';
import { LogStreamDetail } from './LogStreamDetail.js';
import { LogStreamList } from './LogStreamList.js';

/**
 * Log streams: each stream's status, lag and last error; one stream (`#id=lst_…`) with its
 * deliveries, pause, resume, replay and a test message.
 */
export default function LogStreamsView() {
  const { state } = useLocation();
  const id = state.get('id');
  return (
    <section className="admin-view" aria-labelledby="log-streams-title">
      <h1 id="log-streams-title">Log streams</h1>
      {id ? <LogStreamDetail id={id} /> : <LogStreamList />}
    </section>
  );
}
