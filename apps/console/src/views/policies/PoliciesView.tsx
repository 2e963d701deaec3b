import { navigate, useLocation } from '../../shell/location.js';
import '../views.css';
import { PolicyDetail } from './PolicyDetail.js';
import { PolicyEditor } from './PolicyEditor.js';
import { PolicyList } from './PolicyList.js';

/**
 * Policies: the list, one policy (`#id=pol_…`), its editor (`#id=pol_…&edit=1`) and a new
 * one (`#new=1`). Try a policy before saving it in the playground, as a draft.
 */
export default function PoliciesView() {
  const { state } = useLocation();
  const id = state.get('id');
  const editing = state.get('edit') === '1';
  const creating = state.get('new') === '1';
  return (
    <section className="admin-view" aria-labelledby="policies-title">
      <h1 id="policies-title">Policies</h1>
      {creating ? (
        <PolicyEditor onDone={(saved) => openPolicy(saved)} />
      ) : id && editing ? (
        <PolicyEditor id={id} onDone={(saved) => openPolicy(saved ?? id)} />
      ) : id ? (
        <PolicyDetail id={id} />
      ) : (
        <PolicyList />
      )}
    </section>
  );
}

export function openPolicy(id?: string, edit = false): void {
  const state = new URLSearchParams();
  if (id) state.set('id', id);
  if (edit) state.set('edit', '1');
  navigate('policies', state);
}
