import { webcrypto } from 'node:crypto';

/**
 * @peculiar/x509, loaded on first use: it and its dependencies cost a start
 * that never signs anything some tens of milliseconds.
 */

export type X509Module = typeof import('@peculiar/x509');

let loading: Promise<X509Module> | undefined;

export function loadX509(): Promise<X509Module> {
  loading ??= (async () => {
    // @peculiar/x509's dependency injection (tsyringe) needs the Reflect metadata API.
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    return x509;
  })();
  return loading;
}
