//! Precision, device and thread layout by measurement: `auto` picks from probe timings (fake
//! ones here: the chooser is a pure function of them), forced settings win without a probe,
//! the probe cache is keyed and invalidated correctly and survives corrupt files, and the
//! command line refuses an unusable device or an unknown precision clearly.

use crate::common;
use common::{assert_clean_error, fresh_dir, run};

use std::cell::Cell;
use std::process::Command;
use std::time::Duration;

use checkers_zero::config::batching::Count;
use checkers_zero::config::batching::DeviceChoice;
use checkers_zero::config::batching::Form;
use checkers_zero::config::batching::Precision;
use checkers_zero::config::net::NetConfig;
use checkers_zero::config::RunConfig;
use checkers_zero::game::rematch::Rematch;
use checkers_zero::net::args::{NetArgs, NetSettings};
use checkers_zero::net::encode::Encode;
use checkers_zero::net::model::Model;
use checkers_zero::net::precision::{
    choose, probe_batches, probe_model, probe_with, resolve, ProbeCache, ProbeKey, ProbeTimings,
};
use checkers_zero::net::threads::{auto_plan, ThreadPlan};

/// Timings at batches 1, 4, 16, 64, 128 with bf16 taking `ratio[i]` of fp32's time.
fn timings(ratio: [f64; 5]) -> ProbeTimings {
    let batches = vec![1, 4, 16, 64, 128];
    let fp32: Vec<f64> = batches.iter().map(|&b| 1e-4 * b as f64).collect();
    let bf16 = fp32.iter().zip(ratio).map(|(t, r)| t * r).collect();
    ProbeTimings::single(&batches, Form::Folded, fp32, bf16)
}

#[test]
fn auto_picks_the_faster_precision_per_band_from_the_timings() {
    // No native bf16 (AVX2 only): bf16 many times slower everywhere.
    assert_eq!(
        choose(&timings([17.0, 15.0, 14.0, 16.0, 17.0])).bf16_from,
        None
    );
    // Native bf16 units (AMX-like: about 5x faster at every batch): bf16 throughout. The
    // chooser sees only timings, so this follows from the probe and no CPU flag.
    assert_eq!(
        choose(&timings([0.8, 0.3, 0.2, 0.2, 0.2])).bf16_from,
        Some(0)
    );
    // avx512_bf16-like: fp32 ahead at batch 1, bf16 from batch 4 on.
    let band = choose(&timings([1.3, 0.9, 0.8, 0.75, 0.74]));
    assert_eq!(band.bf16_from, Some(4));
    assert_eq!(band.label(), "bf16 from batch 4 (fp32 below)");
    assert!(band.reason.contains("128:1.35x"), "{}", band.reason);
    // bf16 ahead at small batches only: self-play serves large ones, so fp32.
    assert_eq!(choose(&timings([0.5, 0.9, 1.1, 1.2, 1.3])).bf16_from, None);
    // A band must hold up to the largest batch: a bf16 win below an fp32 win does not count.
    assert_eq!(
        choose(&timings([0.5, 1.2, 0.9, 0.9, 0.9])).bf16_from,
        Some(16)
    );
}

#[test]
fn probe_batches_cover_one_to_the_largest() {
    assert_eq!(probe_batches(128), vec![1, 4, 16, 64, 128]);
    assert_eq!(probe_batches(32), vec![1, 4, 16, 32]);
    assert_eq!(probe_batches(1), vec![1]);
}

#[test]
fn probe_times_both_precisions_at_every_batch_within_its_budget() {
    let calls = Cell::new(0);
    let timings = probe_with(&[1, 8], Duration::from_millis(40), |precision, batch| {
        calls.set(calls.get() + 1);
        let nanos = if precision == Precision::Bf16 {
            200_000
        } else {
            100_000
        };
        std::thread::sleep(Duration::from_nanos(nanos * batch as u64));
        Ok::<(), ()>(())
    })
    .unwrap();
    assert_eq!(timings.batches, vec![1, 8]);
    assert!(timings.bf16.iter().zip(&timings.fp32).all(|(b, f)| b > f));
    // A warm-up and at least two timed calls per point, at most 31.
    assert!((12..=124).contains(&calls.get()), "{} calls", calls.get());
    assert_eq!(choose(&timings).bf16_from, None);

    // The real net, tiny: positive timings for both precisions at every batch.
    let shape = Rematch::net_shape(checkers_zero::game::GameKind::Rematch);
    let model = Model::new(shape, NetConfig::tiny(), tch::Device::Cpu).unwrap();
    let forms = [Form::Folded, Form::FoldedChannelsLast];
    let real = probe_model(&model, &forms, &[1, 4], 1, Duration::from_millis(100)).unwrap();
    assert!(real.fp32.iter().chain(&real.bf16).all(|&t| t > 0.0));
    // Both forms measured; the choice is the faster of them per precision.
    assert_eq!(real.forms.len(), 2);
    let per_position = |t: &[f64]| t[0] + t[1] / 4.0;
    let fastest = real
        .forms
        .iter()
        .min_by(|a, b| per_position(&a.fp32).total_cmp(&per_position(&b.fp32)))
        .unwrap();
    assert_eq!(real.fp32_form, fastest.form);
    assert_eq!(real.fp32, fastest.fp32);
}

fn key(threads: i32) -> ProbeKey {
    ProbeKey::new(
        "a test net",
        tch::Device::Cpu,
        (&[Form::Folded], threads),
        &[1, 4],
    )
}

fn fake(bf16_ratio: f64) -> ProbeTimings {
    ProbeTimings::single(
        &[1, 4],
        Form::Folded,
        vec![1.0, 4.0],
        vec![bf16_ratio, 4.0 * bf16_ratio],
    )
}

#[test]
fn forced_precision_wins_without_probing() {
    let cache = ProbeCache::at(&fresh_dir("precision-forced"));
    for (precision, from) in [(Precision::Fp32, None), (Precision::Bf16, Some(0))] {
        let resolved = resolve(precision, &key(1), &cache, || -> Result<_, ()> {
            panic!("a forced precision must not probe")
        })
        .unwrap();
        assert_eq!(resolved.choice.bf16_from, from);
        assert_eq!(resolved.source, "forced");
    }
    // Flags over the config, the config over the defaults.
    let config = NetSettings {
        precision: Precision::Bf16,
        device: DeviceChoice::Cpu,
        ..NetSettings::default()
    };
    let flags = NetArgs {
        precision: Some(Precision::Fp32),
        device: None,
        form: None,
    };
    assert_eq!(flags.over(config).precision, Precision::Fp32);
    assert_eq!(flags.over(config).device, DeviceChoice::Cpu);
    let mut run = RunConfig::parse(
        "game = \"rematch\"\n[batching]\nprecision = \"bf16\"\n",
        "t",
    )
    .unwrap();
    flags.apply_to(&mut run);
    assert_eq!(NetSettings::of(&run.batching).precision, Precision::Fp32);
}

#[test]
fn the_cache_is_keyed_by_machine_libtorch_net_and_threads() {
    let dir = fresh_dir("precision-cache");
    let cache = ProbeCache::at(&dir);
    let probes = Cell::new(0);
    let probe = |ratio: f64| {
        probes.set(probes.get() + 1);
        Ok::<_, ()>(fake(ratio))
    };
    let first = resolve(Precision::Auto, &key(1), &cache, || probe(0.5)).unwrap();
    assert_eq!(
        (first.source, first.choice.bf16_from),
        ("probed now", Some(0))
    );
    // Same key: from the cache, no probe (a probe now would say fp32).
    let again = resolve(Precision::Auto, &key(1), &cache, || probe(2.0)).unwrap();
    assert_eq!(
        (again.source, again.choice.bf16_from),
        ("cached probe", Some(0))
    );
    assert_eq!(probes.get(), 1);
    // Other threads, another net, another libtorch or CPU: other keys, probed anew.
    let mut others = vec![
        key(2),
        ProbeKey::new(
            "another net",
            tch::Device::Cpu,
            (&[Form::Folded], 1),
            &[1, 4],
        ),
    ];
    let mut torch = key(1);
    torch.torch = "0.0.1".into();
    let mut cpu = key(1);
    cpu.cpu_flags.push_str(" amx_bf16");
    others.extend([torch, cpu]);
    for other in &others {
        assert_ne!(other.file_name(), key(1).file_name());
        assert_eq!(cache.get(other), None);
    }
    let other = resolve(Precision::Auto, &others[0], &cache, || probe(2.0)).unwrap();
    assert_eq!((other.source, other.choice.bf16_from), ("probed now", None));
    assert_eq!(probes.get(), 2);
    // Both entries stay.
    assert_eq!(cache.get(&key(1)), Some(fake(0.5)));
    assert_eq!(cache.get(&others[0]), Some(fake(2.0)));
}

#[test]
fn stale_and_corrupt_cache_entries_are_ignored_and_rewritten() {
    let dir = fresh_dir("precision-stale");
    let cache = ProbeCache::at(&dir);
    let path = cache.path(&key(1)).unwrap();
    let reprobe = |cache: &ProbeCache| {
        let resolved = resolve(Precision::Auto, &key(1), cache, || Ok::<_, ()>(fake(0.5)));
        assert_eq!(resolved.unwrap().source, "probed now");
        assert_eq!(cache.get(&key(1)), Some(fake(0.5)), "rewritten");
    };
    for corrupt in [
        "",
        "{not json",
        "{\"format_version\": 1}",
        "\u{0}\u{1}garbage",
    ] {
        std::fs::write(&path, corrupt).unwrap();
        assert_eq!(cache.get(&key(1)), None);
        reprobe(&cache);
    }
    // An entry under this file name measured for another key (e.g. a hand-copied file), in
    // another format version, or with timings that do not fit its batches, is stale.
    cache.put(&key(1), &fake(0.5));
    let entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let edits: [(&str, serde_json::Value); 3] = [
        ("/key/threads", 7.into()),
        ("/format_version", 0.into()),
        ("/timings/bf16", serde_json::json!([0.5])),
    ];
    for (pointer, value) in edits {
        let mut stale = entry.clone();
        *stale.pointer_mut(pointer).unwrap() = value;
        std::fs::write(&path, stale.to_string()).unwrap();
        assert_eq!(cache.get(&key(1)), None, "{pointer}");
        reprobe(&cache);
    }
    // A cache that cannot be written is skipped, not an error.
    let blocked = ProbeCache::at(&path.join("not-a-dir"));
    let resolved = resolve(Precision::Auto, &key(1), &blocked, || {
        Ok::<_, ()>(fake(2.0))
    });
    assert_eq!(resolved.unwrap().choice.bf16_from, None);
}

#[test]
fn config_keys_take_auto_and_name_bad_values() {
    let parse = |extra: &str| RunConfig::parse(&format!("game = \"rematch\"\n{extra}"), "t.toml");
    let config = parse("").unwrap();
    assert_eq!(config.batching.precision, Precision::Auto);
    assert_eq!(config.batching.instances, Count::Auto);
    assert_eq!(config.selfplay.workers, Count::Auto);
    let fixed =
        parse("[selfplay]\nworkers = 3\n[batching]\ninstances = 2\ntorch_threads = 1\n").unwrap();
    let fixed = ThreadPlan::of(&fixed).unwrap();
    assert_eq!(
        (fixed.workers, fixed.instances, fixed.torch_threads),
        (3, 2, 1)
    );
    let auto = ThreadPlan::of(&config).unwrap();
    let cores = std::thread::available_parallelism().unwrap().get();
    let rule = auto_plan(cores, config.batching.device.resolve().unwrap());
    assert_eq!(auto, rule);
    // The recorded config reads back the same.
    assert_eq!(
        RunConfig::parse(&config.to_toml(), "again").unwrap(),
        config
    );
    // The older `bf16` key still loads, as a precision.
    let old = parse("[evaluator]\nbf16 = false\n").unwrap();
    assert_eq!(NetSettings::of(&old.batching).precision, Precision::Fp32);
    let error = |extra: &str| parse(extra).unwrap_err().to_string();
    let bad = error("[batching]\nprecision = \"fp16\"\n");
    assert!(bad.contains("precision") && bad.contains("fp32"), "{bad}");
    let bad = error("[batching]\ndevice = \"tpu\"\n");
    assert!(bad.contains("cuda:N"), "{bad}");
    let bad = error("[selfplay]\nworkers = \"many\"\n");
    assert!(bad.contains("workers") && bad.contains("auto"), "{bad}");
    let bad = error("[selfplay]\nworkers = 0\n");
    assert!(bad.contains("selfplay.workers"), "{bad}");
    let bad = error("[batching]\nbf16 = true\nprecision = \"fp32\"\n");
    assert!(bad.contains("batching.bf16"), "{bad}");
}

#[test]
fn device_values_parse_and_unknown_ones_name_the_allowed() {
    assert_eq!("cuda".parse(), Ok(DeviceChoice::Cuda(0)));
    assert_eq!("cuda:3".parse(), Ok(DeviceChoice::Cuda(3)));
    assert_eq!("cpu".parse(), Ok(DeviceChoice::Cpu));
    assert_eq!(DeviceChoice::Cpu.resolve().unwrap(), tch::Device::Cpu);
    let bad = "gpu".parse::<DeviceChoice>().unwrap_err();
    assert!(bad.contains("auto, cpu, cuda, cuda:N"), "{bad}");
    let bad = "half".parse::<Precision>().unwrap_err();
    assert!(bad.contains("auto, fp32, bf16"), "{bad}");
}

/// Runs the binary with the probe cache in `dir`.
fn run_cached(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(args)
        .env("CHECKERS_ZERO_CACHE", dir)
        .output()
        .unwrap()
}

#[test]
fn cuda_without_a_gpu_is_one_clear_error() {
    if tch::Cuda::is_available() {
        eprintln!("skipped: this machine has a CUDA GPU");
        return;
    }
    let dir = fresh_dir("precision-cuda");
    let config = dir.join("tiny.toml");
    std::fs::write(&config, "game = \"rematch\"\n").unwrap();
    let run_dir = dir.join("run");
    let cases: [&[&str]; 2] = [
        &[
            "bench",
            "--game",
            "rematch",
            "--seconds",
            "1",
            "--device",
            "cuda",
        ],
        &[
            "train",
            "--config",
            config.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--minutes",
            "0.1",
            "--device",
            "cuda:1",
        ],
    ];
    for args in cases {
        assert_clean_error(&run_cached(&dir, args), "CUDA GPU(s)");
    }
}

#[test]
fn an_unknown_precision_names_the_allowed_values() {
    for command in [
        "train", "match", "ratings", "play", "engine", "selfplay", "evaluate", "learn", "bench",
    ] {
        let out = run(&[command, "--precision", "bad"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(stderr.contains("auto, fp32, bf16"), "{command}: {stderr}");
        let out = run(&[command, "--device", "tpu"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("auto, cpu, cuda, cuda:N"),
            "{command}: {stderr}"
        );
    }
}

#[test]
fn bench_layouts_start_with_auto_and_its_snippet_is_a_config() {
    use checkers_zero::bench::{candidate_plans, snippet};
    use checkers_zero::net::precision::PrecisionChoice;
    use checkers_zero::net::threads::ThreadPlan;
    let layout = |workers, instances, torch_threads| ThreadPlan {
        workers,
        instances,
        torch_threads,
    };
    let cpu = tch::Device::Cpu;
    assert_eq!(
        candidate_plans(2, cpu),
        vec![layout(2, 2, 1), layout(2, 1, 2)]
    );
    assert_eq!(
        candidate_plans(8, cpu),
        vec![layout(8, 8, 1), layout(8, 1, 8), layout(8, 4, 2)]
    );
    assert_eq!(candidate_plans(1, cpu), vec![layout(1, 1, 1)]);
    // Every choice writes keys a config accepts, with the values recommended.
    for (bf16_from, written) in [(None, "fp32"), (Some(0), "bf16"), (Some(16), "auto")] {
        let choice = PrecisionChoice {
            bf16_from,
            reason: String::new(),
        };
        let text = snippet(&choice, &layout(3, 2, 1), Precision::Auto, None);
        let config = RunConfig::parse(&format!("game = \"rematch\"\n{text}"), "snippet").unwrap();
        assert_eq!(config.batching.precision, written.parse().unwrap());
        let settled = ThreadPlan::of(&config).unwrap();
        assert_eq!(settled, layout(3, 2, 1));
    }
}

#[test]
fn bench_prints_the_machine_and_tables_and_writes_a_config_snippet() {
    let dir = fresh_dir("precision-bench");
    let config = dir.join("tiny.toml");
    std::fs::write(
        &config,
        "game = \"rematch\"\n[net]\nblocks = 1\nchannels = 8\npolicy_channels = 4\n\
         value_hidden = 8\n[selfplay]\ngames_in_flight = 4\nfast_visits = 2\n\
         ply_cap = 20\n[search]\nvisits = 4\n[batching]\nmax_batch = 16\n",
    )
    .unwrap();
    let snippet = dir.join("bench.toml");
    let out = run_cached(
        &dir,
        &[
            "bench",
            "--config",
            config.to_str().unwrap(),
            "--seconds",
            "2",
            "--write",
            snippet.to_str().unwrap(),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "machine: ",
        "flags: ",
        "peak, 1 thread(s): fp32 ",
        "%peak",
        "folded-channels-last",
        "forms: fp32 ",
        "torchscript (folded fp32 form traced",
        "learner (batch ",
        "bf16 mixed, channels-last",
        "channels-last over contiguous: fp32 ",
        "positions/s",
        "(auto)",
        "recommended: ",
    ] {
        assert!(stdout.contains(needle), "{needle} not in {stdout}");
    }
    let written = std::fs::read_to_string(&snippet).unwrap();
    RunConfig::parse(&format!("game = \"rematch\"\n{written}"), "snippet").unwrap();
}

#[test]
fn exported_models_refuse_bf16_and_cuda_clearly() {
    let out = run(&["engine", "--model", "nowhere", "--precision", "bf16"]);
    assert_clean_error(&out, "exported models run in fp32");
    let out = run(&["play", "--model", "nowhere", "--device", "cuda"]);
    assert_clean_error(&out, "exported models run on the CPU");
}
