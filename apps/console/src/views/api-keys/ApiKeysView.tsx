import type { components } from '@secadmin/api-client';
import { useState } from 'react';
import '../views.css';
import { ApiKeyList } from './ApiKeyList.js';
import { CreateApiKey } from './CreateApiKey.js';
import { SecretDialog } from './SecretDialog.js';

export type ApiKeyCreated = components['schemas']['ApiKeyCreated'];

/**
 * API keys: the keys this key may see (its own principal's, or every key for the root key),
 * a new key whose secret is shown once in a dialog and kept nowhere after it closes, and
 * revocation.
 */
export default function ApiKeysView() {
  const [created, setCreated] = useState<ApiKeyCreated>();
  return (
    <section className="admin-view" aria-labelledby="api-keys-title">
      <h1 id="api-keys-title">API keys</h1>
      <ApiKeyList />
      <CreateApiKey onCreated={setCreated} />
      {created && <SecretDialog created={created} onClose={() => setCreated(undefined)} />}
    </section>
  );
}
