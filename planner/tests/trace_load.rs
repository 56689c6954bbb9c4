//! Loading and validating `trace.json` (docs/DUMP-FORMAT.md §1).

use planner::trace::{Phase, TensorKind, Trace, TraceBuilder, TraceError, TraceProblem};
use serde_json::Value;

fn small_trace() -> Trace {
    let mut t = TraceBuilder::new("small");
    let x = t.tensor(64, TensorKind::Input);
    let w = t.tensor(32, TensorKind::Parameter);
    let y = t.op("linear", Phase::Forward).flops(100).reads(&[x, w]).output(64).finish()[0];
    let z = t.op("relu", Phase::Forward).reads(&[y]).output(64).finish()[0];
    let g = t.op("relu_backward", Phase::Backward).reads(&[z]).output(64).finish()[0];
    t.op("linear_backward", Phase::Backward).reads(&[g, x]).output_as(32, planner::trace::Dtype::F32, TensorKind::ParameterGradient).finish();
    t.build().unwrap()
}

/// Parses the JSON of `small_trace`, lets `edit` change it, and loads it back.
fn load_edited(edit: impl FnOnce(&mut Value)) -> Result<Trace, TraceError> {
    let mut v: Value = serde_json::from_str(&small_trace().to_json_string()).unwrap();
    edit(&mut v);
    Trace::from_json_str(&v.to_string(), "edited.json")
}

fn problem(result: Result<Trace, TraceError>) -> TraceProblem {
    match result {
        Err(TraceError::Invalid { problem, path }) => {
            assert_eq!(path.to_str(), Some("edited.json"));
            problem
        }
        other => panic!("expected an invalid-trace error, got {other:?}"),
    }
}

#[test]
fn builder_output_roundtrips_through_a_file() {
    let trace = small_trace();
    // z is produced in the forward pass and read in the backward pass: saved.
    assert_eq!(trace.tensors[3].kind, TensorKind::SavedActivation);
    assert_eq!(trace.tensors[3].last_forward_use, None);
    assert_eq!(trace.tensors[3].first_backward_use, Some(2));
    let path = std::env::temp_dir().join(format!("planner-trace-{}.json", std::process::id()));
    std::fs::write(&path, trace.to_json_string()).unwrap();
    assert_eq!(Trace::load(&path).unwrap(), trace);
}

#[test]
fn a_gzipped_trace_loads_like_the_plain_file_and_a_broken_one_names_the_file() {
    use std::io::Write;
    let trace = small_trace();
    let path = std::env::temp_dir().join(format!("planner-trace-{}.json.gz", std::process::id()));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(trace.to_json_string().as_bytes()).unwrap();
    let bytes = gz.finish().unwrap();
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(Trace::load(&path).unwrap(), trace);
    // Cut short: the inflater's error, under the file's name.
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = Trace::load(&path).unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }) && err.to_string().contains(".json.gz"), "{err}");
    // Not gzip at all.
    std::fs::write(&path, trace.to_json_string()).unwrap();
    assert!(matches!(Trace::load(&path).unwrap_err(), TraceError::Io { .. }));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn unknown_fields_are_ignored_and_optional_fields_may_be_absent() {
    let t = load_edited(|v| {
        v["capture_tool_version"] = "0.1".into();
        v["ops"][0]["stack"] = "model.fc".into();
        v.as_object_mut().unwrap().remove("seq_len");
    })
    .unwrap();
    assert_eq!(t.seq_len, None);
}

#[test]
fn malformed_json_names_the_file() {
    let err = Trace::from_json_str("{\"format\": ", "broken.json").unwrap_err();
    assert!(matches!(err, TraceError::Json { .. }));
    assert!(err.to_string().starts_with("broken.json: malformed trace JSON"), "{err}");
    let err = load_edited(|v| drop(v["ops"][1].as_object_mut().unwrap().remove("phase"))).unwrap_err();
    assert!(err.to_string().contains("missing field `phase`"), "{err}");
    let err = load_edited(|v| v["ops"][0]["phase"] = "sideways".into()).unwrap_err();
    assert!(matches!(err, TraceError::Json { .. }), "{err}");
    let err = Trace::load("/nonexistent/trace.json").unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }));
}

#[test]
fn schema_rules_are_enforced() {
    assert_eq!(problem(load_edited(|v| v["format"] = "other".into())), TraceProblem::Format("other".into()));
    assert_eq!(problem(load_edited(|v| v["version"] = 2.into())), TraceProblem::Version(2));
    assert_eq!(
        problem(load_edited(|v| v["ops"][1]["id"] = 7.into())),
        TraceProblem::OpIdNotPosition { index: 1, id: 7 }
    );
    assert_eq!(
        problem(load_edited(|v| v["ops"][2]["phase"] = "optimizer".into())),
        TraceProblem::PhaseOrder { op: 3, phase: Phase::Backward, previous: Phase::Optimizer }
    );
    assert_eq!(problem(load_edited(|v| v["tensors"][1]["id"] = 0.into())), TraceProblem::DuplicateTensor(0));
    assert_eq!(
        problem(load_edited(|v| v["ops"][1]["inputs"][0] = 99.into())),
        TraceProblem::UnknownTensor { op: 1, tensor: 99 }
    );
    assert_eq!(
        problem(load_edited(|v| v["tensors"][2]["producer"]["slot"] = 1.into())),
        TraceProblem::BadProducer { tensor: 2, op: 0, slot: 1 }
    );
    assert!(matches!(
        problem(load_edited(|v| v["tensors"][2]["producer_op_type"] = "conv".into())),
        TraceProblem::ProducerOpType { tensor: 2, .. }
    ));
    assert_eq!(
        problem(load_edited(|v| v["tensors"][3]["first_backward_use"] = 3.into())),
        TraceProblem::UseMismatch { tensor: 3, field: "first_backward_use", found: Some(3), expected: Some(2) }
    );
    assert_eq!(problem(load_edited(|v| v["ops"][1]["rng"] = true.into())), TraceProblem::ReplayableRng(1));
    // op0 reads z, which op1 produces later.
    assert_eq!(
        problem(load_edited(|v| v["ops"][0]["inputs"][0] = 3.into())),
        TraceProblem::ReadBeforeWrite { op: 0, tensor: 3 }
    );
}
