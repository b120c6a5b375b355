"""Validates rendered chart manifests: core kinds against a pinned Kubernetes version's OpenAPI schema
(kubernetes-validate, strict: unknown fields are errors), custom resources against their CRDs' own schemas
(made strict the same way: an object with declared properties accepts no others).

usage: validate.py K8S_VERSION CRD_FILE[,CRD_FILE...] MANIFEST...
"""

import sys

import jsonschema
import kubernetes_validate
import yaml


def strict(schema):
    """The CRD's schema, with additionalProperties: false wherever properties are declared and unknown
    fields are not explicitly kept (what the API server prunes silently is a typo in a chart)."""
    if isinstance(schema, dict):
        schema = {k: strict(v) for k, v in schema.items()}
        if (
            "properties" in schema
            and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
        ):
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


def crd_schemas(files):
    schemas = {}
    for name in files:
        with open(name) as f:
            for crd in yaml.safe_load_all(f):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                group = crd["spec"]["group"]
                kind = crd["spec"]["names"]["kind"]
                for version in crd["spec"]["versions"]:
                    key = (f"{group}/{version['name']}", kind)
                    schemas[key] = strict(version["schema"]["openAPIV3Schema"])
    return schemas


def main():
    k8s_version, crd_files, manifests = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
    schemas = crd_schemas(crd_files)
    checked = 0
    errors = []
    for name in manifests:
        with open(name) as f:
            for doc in yaml.safe_load_all(f):
                if not doc:
                    continue
                what = f"{name}: {doc.get('kind')} {doc.get('metadata', {}).get('name')}"
                key = (doc.get("apiVersion"), doc.get("kind"))
                try:
                    if key in schemas:
                        jsonschema.validate(doc, schemas[key])
                    elif "." in key[0].split("/")[0] and not key[0].startswith(
                        ("apps/", "policy/", "autoscaling/", "networking.k8s.io/", "rbac.authorization.k8s.io/")
                    ):
                        errors.append(f"{what}: no schema for {key[0]} {key[1]}")
                        continue
                    else:
                        kubernetes_validate.validate(doc, k8s_version, strict=True)
                    checked += 1
                except (jsonschema.ValidationError, kubernetes_validate.ValidationError) as e:
                    errors.append(f"{what}: {getattr(e, 'message', e)} at {list(getattr(e, 'path', []))}")
    for error in errors:
        print("INVALID", error)
    print(f"validated {checked} objects against Kubernetes {k8s_version} and {len(schemas)} CRD versions;"
          f" {len(errors)} invalid")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
