#!/usr/bin/env node
// Validates Kubernetes manifests offline: every object of the multi-document YAML read
// from the files named (or stdin) against the schema of its apiVersion/kind, the Kubernetes API's
// (kubernetes-models, generated from the upstream OpenAPI spec) or prometheus-operator's CRDs
// (@kubernetes-models/prometheus-operator). Fails on an unknown apiVersion or kind, a wrong type,
// a missing required field, a value outside an enum or format, and an unknown field.
//
// Unknown fields: the upstream schemas do not close their objects (no additionalProperties: false;
// the API server rejects unknown fields only under strict field validation), so the generated
// validators would accept `spec.replica: 3` silently. The validators read every property their
// schema declares, by name, and enumerate the keys of map-typed objects (labels, annotations,
// ConfigMap data); so each object is validated through a Proxy that records which keys the
// validator read, and a key it never read is a field the schema does not have.
//
// Usage: kubectl kustomize k8s/overlays/prod | node validate.js [FILE...]
// Prints one line per problem and "N objects valid" / "N problems"; exits 1 on any problem.
"use strict";

const fs = require("fs");
const YAML = require("yaml");
const { formats } = require("@kubernetes-models/validate");

// A Secret's `data` is base64 that kustomize wraps at 76 columns; the API server's decoder (Go's
// encoding/base64) skips the line breaks, the package's "byte" format does not. Read it as the
// server does. (The generated validators hold this object and call its validate() at run time.)
const byteFormat = formats.byte.validate;
formats.byte.validate = (value) => byteFormat(value.replace(/[\r\n]/g, ""));

// The package holding an apiVersion's models (as the subpath "<apiVersion>"): prometheus-operator's
// CRDs, else the Kubernetes API's. An apiVersion neither has is an error.
const CRD_PACKAGES = {
  "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
};

function modelFor(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    return { error: "no apiVersion or kind" };
  }
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.lastIndexOf("/")) : "";
  const pkg = CRD_PACKAGES[group] || "kubernetes-models";
  let mod;
  try {
    mod = require(`${pkg}/${apiVersion}`);
  } catch (e) {
    return { error: `no schema for apiVersion ${apiVersion}` };
  }
  const model = Object.prototype.hasOwnProperty.call(mod, kind) ? mod[kind] : undefined;
  if (typeof model !== "function" || model.kind !== kind) {
    return { error: `unknown kind ${kind} in ${apiVersion}` };
  }
  return { model };
}

// Wraps `value` (recursively) so that reads are recorded in `seen`: object -> {keys, enumerated}.
function track(value, seen) {
  if (value === null || typeof value !== "object") return value;
  const wrapped = Array.isArray(value) ? [] : {};
  for (const [k, v] of Object.entries(value)) wrapped[k] = track(v, seen);
  const record = { keys: new Set(), enumerated: false, target: wrapped };
  const proxy = new Proxy(wrapped, {
    get(target, key, receiver) {
      if (typeof key === "string") record.keys.add(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === "string") record.keys.add(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      if (typeof key === "string") record.keys.add(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      record.enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
  seen.set(proxy, record);
  return proxy;
}

// The keys the validator never read, as paths ("/spec/template/spec/containers/0/foo").
function unknownFields(proxy, seen, where, out) {
  const record = seen.get(proxy);
  if (!record) return out;
  // record.target is the proxy's plain target: reading it records nothing.
  for (const [key, child] of Object.entries(record.target)) {
    const at = `${where}/${key}`;
    // Arrays are read by index; a map's keys (labels, ConfigMap data) are data, not fields.
    if (Array.isArray(record.target) || record.enumerated || record.keys.has(key)) {
      unknownFields(child, seen, at, out);
    } else {
      out.push(at);
    }
  }
  return out;
}

function validateObject(obj) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    return ["not a mapping"];
  }
  const { model, error } = modelFor(obj.apiVersion, obj.kind);
  if (error) return [error];
  const seen = new WeakMap();
  const data = track(obj, seen);
  const problems = [];
  try {
    // The model's validate() runs the generated schema validator on `this`.
    model.prototype.validate.call(data);
  } catch (e) {
    if (!e || !Array.isArray(e.errors)) throw e;
    for (const err of e.errors) {
      const params = err.params ? JSON.stringify(err.params) : "";
      problems.push(`${err.instancePath || "/"}: ${err.message || err.keyword} ${params}`.trim());
    }
  }
  for (const field of unknownFields(data, seen, "", [])) {
    problems.push(`${field}: unknown field`);
  }
  return problems;
}

function main(argv) {
  const inputs = argv.length ? argv.map((f) => [f, fs.readFileSync(f, "utf8")]) : [["<stdin>", fs.readFileSync(0, "utf8")]];
  let objects = 0;
  let problems = 0;
  for (const [file, text] of inputs) {
    // YAML 1.1, as the API server and kubectl read manifests (sigs.k8s.io/yaml).
    for (const doc of YAML.parseAllDocuments(text, { version: "1.1" })) {
      if (doc.errors.length) {
        for (const e of doc.errors) console.log(`${file}: YAML: ${e.message}`);
        problems += doc.errors.length;
        continue;
      }
      const obj = doc.toJS();
      if (obj === null || obj === undefined) continue;
      objects++;
      const name = `${obj.kind}/${(obj.metadata && obj.metadata.name) || "?"}`;
      for (const p of validateObject(obj)) {
        console.log(`${file}: ${name}: ${p}`);
        problems++;
      }
    }
  }
  if (problems) {
    console.log(`${problems} problems in ${objects} objects`);
    return 1;
  }
  if (!objects) {
    console.log("no objects to validate");
    return 1;
  }
  console.log(`${objects} objects valid`);
  return 0;
}

module.exports = { validateObject };

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
