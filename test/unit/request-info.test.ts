/**
 * Request paths and methods parsed the way kube-apiserver's RequestInfoFactory
 * does (cases after its requestinfo_test.go): API prefixes and groups,
 * namespaces, subresources, verbs per method, list vs get, watch via the
 * legacy /watch/ prefix or ?watch, deletecollection, non-resource paths.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseRequestInfo, splitPath, type RequestInfo, type ResourceRequestInfo } from '../../src/machinery/request-info.js';

function parse(method: string, url: string): RequestInfo {
  const u = new URL(url, 'https://capstan.invalid');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

type Want = Pick<ResourceRequestInfo, 'verb' | 'apiPrefix' | 'group' | 'version' | 'namespace' | 'resource' | 'name' | 'subresource'> &
  Partial<Pick<ResourceRequestInfo, 'rest' | 'legacyWatchPath'>>;

function want(
  verb: Want['verb'],
  apiPrefix: Want['apiPrefix'],
  group: string,
  version: string,
  namespace: string,
  resource: string,
  subresource: string,
  name: string,
  extra: Partial<Want> = {},
): Want {
  return { verb, apiPrefix, group, version, namespace, resource, subresource, name, ...extra };
}

describe('resource requests', () => {
  const cases: Array<{ method: string; url: string; want: Want }> = [
    // Collections and objects, core group.
    { method: 'GET', url: '/api/v1/namespaces/other/pods', want: want('list', 'api', '', 'v1', 'other', 'pods', '', '') },
    { method: 'GET', url: '/api/v1/namespaces/other/pods/foo', want: want('get', 'api', '', 'v1', 'other', 'pods', '', 'foo') },
    { method: 'HEAD', url: '/api/v1/namespaces/other/pods/foo', want: want('get', 'api', '', 'v1', 'other', 'pods', '', 'foo') },
    { method: 'GET', url: '/api/v1/pods', want: want('list', 'api', '', 'v1', '', 'pods', '', '') },
    { method: 'HEAD', url: '/api/v1/pods', want: want('list', 'api', '', 'v1', '', 'pods', '', '') },
    { method: 'GET', url: '/api/v1/nodes/n1', want: want('get', 'api', '', 'v1', '', 'nodes', '', 'n1') },
    // Namespaces are cluster-scoped objects; status and finalize are their subresources.
    { method: 'GET', url: '/api/v1/namespaces', want: want('list', 'api', '', 'v1', '', 'namespaces', '', '') },
    { method: 'GET', url: '/api/v1/namespaces/other', want: want('get', 'api', '', 'v1', '', 'namespaces', '', 'other') },
    { method: 'PUT', url: '/api/v1/namespaces/other/finalize', want: want('update', 'api', '', 'v1', '', 'namespaces', 'finalize', 'other') },
    { method: 'PUT', url: '/api/v1/namespaces/other/status', want: want('update', 'api', '', 'v1', '', 'namespaces', 'status', 'other') },
    { method: 'DELETE', url: '/api/v1/namespaces/other', want: want('delete', 'api', '', 'v1', '', 'namespaces', '', 'other') },
    // Named groups and versions.
    { method: 'POST', url: '/apis/apps/v1/namespaces/other/deployments', want: want('create', 'apis', 'apps', 'v1', 'other', 'deployments', '', '') },
    { method: 'POST', url: '/apis/extensions/v1beta3/namespaces/other/pods', want: want('create', 'apis', 'extensions', 'v1beta3', 'other', 'pods', '', '') },
    { method: 'GET', url: '/apis/rbac.authorization.k8s.io/v1/clusterroles/edit', want: want('get', 'apis', 'rbac.authorization.k8s.io', 'v1', '', 'clusterroles', '', 'edit') },
    { method: 'GET', url: '/apis/apps/v1/deployments', want: want('list', 'apis', 'apps', 'v1', '', 'deployments', '', '') },
    // Subresources, and what follows them.
    { method: 'GET', url: '/api/v1/namespaces/other/pods/foo/status', want: want('get', 'api', '', 'v1', 'other', 'pods', 'status', 'foo') },
    { method: 'PUT', url: '/apis/apps/v1/namespaces/other/deployments/web/scale', want: want('update', 'apis', 'apps', 'v1', 'other', 'deployments', 'scale', 'web') },
    {
      method: 'GET',
      url: '/api/v1/namespaces/other/pods/foo/proxy/subpath/deeper',
      want: want('get', 'api', '', 'v1', 'other', 'pods', 'proxy', 'foo', { rest: ['subpath', 'deeper'] }),
    },
    // Verbs per method.
    { method: 'POST', url: '/api/v1/namespaces/other/pods', want: want('create', 'api', '', 'v1', 'other', 'pods', '', '') },
    { method: 'PUT', url: '/api/v1/namespaces/other/pods/foo', want: want('update', 'api', '', 'v1', 'other', 'pods', '', 'foo') },
    { method: 'PATCH', url: '/api/v1/namespaces/other/pods/foo', want: want('patch', 'api', '', 'v1', 'other', 'pods', '', 'foo') },
    { method: 'DELETE', url: '/api/v1/namespaces/other/pods/foo', want: want('delete', 'api', '', 'v1', 'other', 'pods', '', 'foo') },
    // DELETE on a collection is deletecollection.
    { method: 'DELETE', url: '/api/v1/namespaces/other/pods', want: want('deletecollection', 'api', '', 'v1', 'other', 'pods', '', '') },
    { method: 'DELETE', url: '/api/v1/nodes', want: want('deletecollection', 'api', '', 'v1', '', 'nodes', '', '') },
    { method: 'DELETE', url: '/api/v1/namespaces', want: want('deletecollection', 'api', '', 'v1', '', 'namespaces', '', '') },
    { method: 'DELETE', url: '/apis/extensions/v1/namespaces/other/pods', want: want('deletecollection', 'apis', 'extensions', 'v1', 'other', 'pods', '', '') },
    // Other methods are connect verbs here.
    { method: 'OPTIONS', url: '/api/v1/namespaces/other/pods/foo', want: want('connect', 'api', '', 'v1', 'other', 'pods', '', 'foo') },
  ];
  for (const c of cases) {
    it(`${c.method} ${c.url}`, () => {
      const info = parse(c.method, c.url);
      assert.equal(info.isResourceRequest, true);
      const got = info as ResourceRequestInfo;
      const picked = Object.fromEntries(Object.keys(c.want).map((k) => [k, got[k as keyof ResourceRequestInfo]]));
      assert.deepEqual(picked, c.want);
      assert.equal(got.path, new URL(c.url, 'https://x').pathname);
    });
  }
});

describe('watch: the legacy /watch/ prefix and the watch parameter', () => {
  const cases: Array<{ method: string; url: string; want: Want }> = [
    { method: 'GET', url: '/api/v1/watch/pods', want: want('watch', 'api', '', 'v1', '', 'pods', '', '', { legacyWatchPath: true }) },
    { method: 'GET', url: '/api/v1/watch/namespaces/other/pods', want: want('watch', 'api', '', 'v1', 'other', 'pods', '', '', { legacyWatchPath: true }) },
    { method: 'GET', url: '/api/v1/watch/namespaces/other/pods/foo', want: want('watch', 'api', '', 'v1', 'other', 'pods', '', 'foo', { legacyWatchPath: true }) },
    { method: 'GET', url: '/apis/apps/v1/watch/namespaces/other/deployments', want: want('watch', 'apis', 'apps', 'v1', 'other', 'deployments', '', '', { legacyWatchPath: true }) },
    { method: 'GET', url: '/api/v1/watch/namespaces', want: want('watch', 'api', '', 'v1', '', 'namespaces', '', '', { legacyWatchPath: true }) },
    // The path wins over ?watch=false.
    { method: 'GET', url: '/api/v1/watch/pods?watch=false', want: want('watch', 'api', '', 'v1', '', 'pods', '', '', { legacyWatchPath: true }) },
    { method: 'GET', url: '/api/v1/pods?watch=true', want: want('watch', 'api', '', 'v1', '', 'pods', '', '', { legacyWatchPath: false }) },
    { method: 'GET', url: '/api/v1/namespaces/other/pods?watch=1', want: want('watch', 'api', '', 'v1', 'other', 'pods', '', '') },
    { method: 'HEAD', url: '/api/v1/pods?watch=1', want: want('watch', 'api', '', 'v1', '', 'pods', '', '') },
    { method: 'GET', url: '/api/v1/pods?watch=false', want: want('list', 'api', '', 'v1', '', 'pods', '', '') },
    { method: 'GET', url: '/api/v1/namespaces/other/pods?watch=0', want: want('list', 'api', '', 'v1', 'other', 'pods', '', '') },
    { method: 'GET', url: '/api/v1/pods?watch=FALSE', want: want('list', 'api', '', 'v1', '', 'pods', '', '') },
    // Any other value, even an empty one, is true (Convert_Slice_string_To_bool).
    { method: 'GET', url: '/api/v1/pods?watch', want: want('watch', 'api', '', 'v1', '', 'pods', '', '') },
    { method: 'GET', url: '/api/v1/pods?watch=yes', want: want('watch', 'api', '', 'v1', '', 'pods', '', '') },
    { method: 'GET', url: '/api/v1/pods?watch=f', want: want('watch', 'api', '', 'v1', '', 'pods', '', '') },
    // The first value counts.
    { method: 'GET', url: '/api/v1/pods?watch=0&watch=1', want: want('list', 'api', '', 'v1', '', 'pods', '', '') },
    // A single-object watch through the item path (this server serves it).
    { method: 'GET', url: '/api/v1/namespaces/other/configmaps/w1?watch=true', want: want('watch', 'api', '', 'v1', 'other', 'configmaps', '', 'w1') },
    // ?watch only changes reads.
    { method: 'DELETE', url: '/api/v1/namespaces/other/pods?watch=1', want: want('deletecollection', 'api', '', 'v1', 'other', 'pods', '', '') },
    { method: 'POST', url: '/api/v1/namespaces/other/pods?watch=1', want: want('create', 'api', '', 'v1', 'other', 'pods', '', '') },
  ];
  for (const c of cases) {
    it(`${c.method} ${c.url}`, () => {
      const info = parse(c.method, c.url) as ResourceRequestInfo;
      assert.equal(info.isResourceRequest, true);
      const picked = Object.fromEntries(Object.keys(c.want).map((k) => [k, info[k as keyof ResourceRequestInfo]]));
      assert.deepEqual(picked, c.want);
    });
  }
});

describe('non-resource requests', () => {
  const cases: Array<{ method: string; url: string }> = [
    { method: 'GET', url: '/' },
    { method: 'GET', url: '/api' },
    { method: 'GET', url: '/api/v1' },
    { method: 'GET', url: '/api/v1/' },
    { method: 'GET', url: '/apis' },
    { method: 'GET', url: '/apis/apps' },
    { method: 'GET', url: '/apis/apps/v1' },
    { method: 'GET', url: '/healthz' },
    { method: 'GET', url: '/readyz/etcd' },
    { method: 'GET', url: '/openapi/v3/apis/apps/v1' },
    { method: 'GET', url: '/version' },
    { method: 'POST', url: '/other/thing' },
    { method: 'GET', url: '/apix/v1/pods' },
    // A malformed escape is not a resource path.
    { method: 'GET', url: '/api/v1/namespaces/%zz/pods' },
  ];
  for (const c of cases) {
    it(`${c.method} ${c.url}`, () => {
      const u = new URL(c.url, 'https://x');
      const info = parseRequestInfo(c.method, u.pathname, u.searchParams);
      assert.deepEqual(info, { isResourceRequest: false, path: u.pathname, verb: c.method.toLowerCase() });
    });
  }
});

describe('splitPath', () => {
  const cases: Array<{ path: string; want: string[] | undefined }> = [
    { path: '/', want: [] },
    { path: '', want: [] },
    { path: '/api/v1/pods', want: ['api', 'v1', 'pods'] },
    { path: '//api//v1/', want: ['api', 'v1'] },
    { path: '/api/v1/namespaces/a%20b', want: ['api', 'v1', 'namespaces', 'a b'] },
    { path: '/api/%E0%A4%A', want: undefined },
  ];
  for (const c of cases) it(JSON.stringify(c.path), () => assert.deepEqual(splitPath(c.path), c.want));
});
