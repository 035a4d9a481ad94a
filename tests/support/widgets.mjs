// The widgets CRD the JavaScript tests share (the engine's unit tests have theirs in
// engine/src/testing.rs): spec.replicas (required, minimum 1), maxReplicas, name (maxLength
// 5), tags, and one rule on spec.

import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { root } from './harness.mjs';

/** The npm package's build the widget tests read: CRDLAB_NPM_DIR, default target/npm. */
export const npmDir = path.resolve(root, process.env.CRDLAB_NPM_DIR || 'target/npm');

/** Builds the docs-page widget (web/widget/build.mjs) from the npm package's web build into `dir`; returns the build's log. */
export function buildWidget(dir) {
  return execFileSync(process.execPath, [path.join(root, 'web', 'widget', 'build.mjs'), dir, path.join(npmDir, 'web')], { encoding: 'utf8' });
}

/**
 * The CRD text with `rule` (YAML as written: quote it yourself when it needs quoting) and
 * `more`: further properties of spec, YAML lines indented 14 spaces.
 */
export function widgetsCrd(rule = 'self.replicas <= self.maxReplicas', message = 'replicas must not exceed maxReplicas', more = '') {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [replicas]
            x-kubernetes-validations:
            - rule: ${rule}
              message: ${message}
            properties:
              replicas: {type: integer, minimum: 1}
              maxReplicas: {type: integer}
              name: {type: string, maxLength: 5}
              tags:
                type: array
                items: {type: string}
${more}`;
}
