/**
 * The Go zero value of a built-in kind as kube's unstructured converter
 * renders it (runtime.ObjectCreater.New + ToUnstructured). kube compares a
 * create against this value, not against nothing, and that decides which
 * nodes of an Update entry are members: a Deployment's spec exists in the
 * zero value (a non-pointer struct), so `f:spec` gets no "." while
 * `f:metadata.f:labels` does.
 *
 * OpenAPI does not say which fields are non-pointer structs or lack
 * omitempty, so the well-known ones are listed here; other kinds fall back to
 * metadata.creationTimestamp: null plus spec/status structs.
 */
import type { SchemaModel } from '../api/schema-model.js';
import type { JsonObject } from './value.js';

/** Per definition: fields whose zero value is rendered (non-pointer structs as {}, nil slices/pointers without omitempty as null, strings as ""). */
const ZERO_FIELDS: Readonly<Record<string, Readonly<Record<string, 'struct' | 'null' | 'string'>>>> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { creationTimestamp: 'null' },
  'io.k8s.api.apps.v1.DeploymentSpec': { selector: 'null', template: 'struct', strategy: 'struct' },
  'io.k8s.api.apps.v1.StatefulSetSpec': { selector: 'null', template: 'struct', updateStrategy: 'struct' },
  'io.k8s.api.apps.v1.DaemonSetSpec': { selector: 'null', template: 'struct', updateStrategy: 'struct' },
  'io.k8s.api.apps.v1.ReplicaSetSpec': { selector: 'null', template: 'struct' },
  'io.k8s.api.batch.v1.JobSpec': { template: 'struct' },
  'io.k8s.api.batch.v1.CronJobSpec': { schedule: 'string', jobTemplate: 'struct' },
  'io.k8s.api.batch.v1.JobTemplateSpec': { metadata: 'struct', spec: 'struct' },
  'io.k8s.api.core.v1.PodTemplateSpec': { metadata: 'struct', spec: 'struct' },
  'io.k8s.api.core.v1.PodTemplate': { template: 'struct' },
  'io.k8s.api.core.v1.PodSpec': { containers: 'null' },
  'io.k8s.api.core.v1.ServiceStatus': { loadBalancer: 'struct' },
  'io.k8s.api.rbac.v1.Role': { rules: 'null' },
  'io.k8s.api.rbac.v1.ClusterRole': { rules: 'null' },
  'io.k8s.api.rbac.v1.RoleBinding': { roleRef: 'struct' },
  'io.k8s.api.rbac.v1.ClusterRoleBinding': { roleRef: 'struct' },
  'io.k8s.api.rbac.v1.RoleRef': { apiGroup: 'string', kind: 'string', name: 'string' },
};

/** Root fields that are non-pointer structs in (nearly) every kind. */
const ROOT_STRUCTS = ['metadata', 'spec', 'status'];

function zeroStruct(model: SchemaModel, name: string, depth: number): JsonObject {
  const out: JsonObject = {};
  const props = model.definition(name)?.properties;
  const fields = ZERO_FIELDS[name] ?? {};
  for (const [field, kind] of Object.entries(fields)) {
    const prop = props?.get(field);
    if (prop === undefined) continue;
    if (kind === 'null') out[field] = null;
    else if (kind === 'string') out[field] = '';
    else {
      const ref = prop.ref;
      out[field] = ref && depth < 8 ? zeroStruct(model, ref, depth + 1) : {};
    }
  }
  return out;
}

/** The zero object of a built-in kind by definition name. */
export function zeroObject(model: SchemaModel, definitionName: string): JsonObject {
  const props = model.definition(definitionName)?.properties;
  const out = zeroStruct(model, definitionName, 0);
  for (const field of ROOT_STRUCTS) {
    const ref = props?.get(field)?.ref;
    if (ref !== undefined && !(field in out)) out[field] = zeroStruct(model, ref, 1);
  }
  return out;
}
