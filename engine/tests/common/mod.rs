//! Shared by the integration tests: a one-version CRD to put schema properties and rules in.

/// A namespaced `widgets.example.com/v1` CRD whose `spec` has `props` (YAML lines indented
/// 14 spaces) and `spec`-level `rules` (x-kubernetes-validations entries, 12 spaces).
pub fn crd(props: &str, rules: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: widgets.example.com}}
spec:
  group: example.com
  names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}
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
            properties:
{}
            x-kubernetes-validations:
{}
"#,
        props, rules
    )
}
