import { createSecadminClient, type SecadminClient } from '@secadmin/api-client';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { forgetKey, rememberedKey, storeKey } from './key-store.js';

export interface Session {
  /** The client of the signed-in key; undefined before sign-in. */
  client: SecadminClient | undefined;
  signIn(client: SecadminClient, key: string, rememberInTab: boolean): void;
  signOut(): void;
}

const SessionContext = createContext<Session | undefined>(undefined);

/**
 * A client that sends `key` to this origin's API, and nowhere else. What it reads stays out of
 * the browser's HTTP cache, which is kept on disk past the tab and the sign-out.
 */
export function clientFor(key: string): SecadminClient {
  return createSecadminClient({
    baseUrl: window.location.origin,
    apiKey: key,
    timeout: 30_000,
    fetch: (request) => fetch(request, { cache: 'no-store' }),
  });
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [client, setClient] = useState<SecadminClient | undefined>(() => {
    const key = rememberedKey();
    return key ? clientFor(key) : undefined;
  });
  const signIn = useCallback((next: SecadminClient, key: string, rememberInTab: boolean) => {
    storeKey(key, rememberInTab);
    setClient(next);
  }, []);
  const signOut = useCallback(() => {
    forgetKey();
    queryClient.clear(); // nothing one key read stays for the next
    setClient(undefined);
  }, [queryClient]);
  const session = useMemo(() => ({ client, signIn, signOut }), [client, signIn, signOut]);
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The signed-in client; views are only shown signed in. */
export function useClient(): SecadminClient {
  const { client } = useSession();
  if (!client) throw new Error('useClient before sign-in');
  return client;
}
