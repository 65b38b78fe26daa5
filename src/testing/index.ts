/**
 * capstan/testing: a real Kubernetes API server inside a test suite.
 *
 *   import { startTestServer } from 'capstan/testing';
 *   const kube = await startTestServer({ crds: ['./config/crd'] });
 *   // ... kube.kubeConfigPath, kube.clientFor('alice'), kube.waitFor(...)
 *   await kube.stop();
 */
export { startTestServer, type TestServer, type TestServerOptions, type TestUser, type WaitOptions } from './test-server.js';
export { parseManifests, readManifests, objectRef, type ManifestSource } from './manifests.js';
export type { RequestRecord } from '../server/apiserver.js';
