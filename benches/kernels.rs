//! Criterion benchmarks of the CPU kernels: matmul (gemm), elementwise/reduction loops,
//! convolutions and the fused optimizer updates. Run: `cargo bench -p ferroflow-benches`.
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use ferroflow_core::Tensor;
use ferroflow_core::kernels::ExecEnv;
use ferroflow_core::kernels::conv::{ConvGeometry, Padding, conv2d};
use ferroflow_core::kernels::elementwise::{binary, unary, unary_chunks};
use ferroflow_core::kernels::fastmath::{exp_f32, sigmoid_f32, sigmoid_f32_block, tanh_f32};
use ferroflow_core::kernels::matmul::matmul;
use ferroflow_core::kernels::reduce::{Reduction, reduce};
use ferroflow_core::kernels::training::{
    Adadelta, Adagrad, Adam, CenteredRmsProp, Ftrl, GradientDescent, Momentum, ProximalAdagrad,
    ProximalGradientDescent, RmsProp, apply_dense,
};

fn filled(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| ((i % 1013) as f32) * 1e-3).collect();
    Tensor::from_slice(shape, &v).expect("shape matches data")
}

fn bench_matmul(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul_f32");
    let single = ExecEnv { intra_pool: None };
    let pooled = ExecEnv { intra_pool: ferroflow_core::framework::pool::shared_pool(2) };
    for n in [64usize, 256, 1024] {
        let (a, b) = (filled(&[n, n]), filled(&[n, n]));
        group.throughput(Throughput::Elements((2 * n * n * n) as u64));
        group.bench_with_input(BenchmarkId::new("1-thread", n), &n, |bench, _| {
            bench.iter(|| matmul(&a, &b, false, false, &single).expect("valid shapes"));
        });
        group.bench_with_input(BenchmarkId::new("2-threads", n), &n, |bench, _| {
            bench.iter(|| matmul(&a, &b, false, false, &pooled).expect("valid shapes"));
        });
    }
    group.finish();
}

fn bench_elementwise(c: &mut Criterion) {
    let mut group = c.benchmark_group("elementwise_f32");
    let env = ExecEnv { intra_pool: None };
    let env = &env;
    let n = 1 << 20;
    let (a, b) = (filled(&[n]), filled(&[n]));
    let row = filled(&[1024]);
    let m = filled(&[n / 1024, 1024]);
    group.throughput(Throughput::Elements(n as u64));
    // `a.clone()` shares the buffer, so each call allocates its output as a real step would.
    group.bench_function("add_same_shape", |bench| {
        bench.iter(|| binary::<f32>(a.clone(), b.clone(), env, |x, y| x + y).expect("same shape"));
    });
    group.bench_function("add_broadcast_row", |bench| {
        bench.iter(|| binary::<f32>(m.clone(), row.clone(), env, |x, y| x + y).expect("broadcastable"));
    });
    group.bench_function("add_in_place", |bench| {
        bench.iter_batched(
            || filled(&[n]),
            |x| binary::<f32>(x, b.clone(), env, |x, y| x + y).expect("same shape"),
            criterion::BatchSize::LargeInput,
        );
    });
    group.bench_function("exp_libm", |bench| {
        bench.iter(|| unary::<f32>(a.clone(), env, f32::exp).expect("float"));
    });
    group.bench_function("exp_fastmath", |bench| {
        bench.iter(|| unary::<f32>(a.clone(), env, exp_f32).expect("float"));
    });
    group.bench_function("tanh_fastmath", |bench| {
        bench.iter(|| unary::<f32>(a.clone(), env, tanh_f32).expect("float"));
    });
    // The scalar form (separate roundings) against the kernel's block (fused
    // multiply-adds where the CPU has FMA).
    group.bench_function("sigmoid_scalar", |bench| {
        bench.iter(|| unary::<f32>(a.clone(), env, sigmoid_f32).expect("float"));
    });
    group.bench_function("sigmoid_block", |bench| {
        bench.iter(|| unary_chunks::<f32>(a.clone(), env, sigmoid_f32_block).expect("float"));
    });
    group.bench_function("reduce_sum_all", |bench| {
        bench.iter(|| reduce::<f32>(&a, &[0], false, Reduction::Sum, env).expect("valid axis"));
    });
    group.bench_function("reduce_sum_rows", |bench| {
        bench.iter(|| reduce::<f32>(&m, &[0], false, Reduction::Sum, env).expect("valid axis"));
    });
    group.finish();
}

fn bench_conv(c: &mut Criterion) {
    let mut group = c.benchmark_group("conv2d_f32");
    let env = ExecEnv { intra_pool: None };
    // 3x3 SAME, stride 1, one thread: an RGB first layer (the direct few-channel
    // kernel) and a 64-channel layer (Winograd).
    for (name, input, filter) in
        [("rgb_8x32x32x3_to_32", [8, 32, 32, 3], [3, 3, 3, 32]), ("8x32x32x64_to_64", [8, 32, 32, 64], [3, 3, 64, 64])]
    {
        let (x, f) = (filled(&input), filled(&filter));
        let g = ConvGeometry::new(&input, &filter, [1, 1], [1, 1], Padding::Same).expect("valid geometry");
        let macs = g.n * g.oh * g.ow * g.o * g.kh * g.kw * g.c;
        group.throughput(Throughput::Elements(2 * macs as u64));
        group.bench_function(name, |bench| {
            bench.iter(|| conv2d::<f32>(&x, &f, &g, &env).expect("valid shapes"));
        });
    }
    group.finish();
}

fn bench_optimizer_updates(c: &mut Criterion) {
    let mut group = c.benchmark_group("optimizer_update_f32");
    let env = ExecEnv { intra_pool: None };
    let n = 1 << 20;
    let grad: Vec<f32> = (0..n).map(|i| ((i % 1013) as f32) * 1e-3 - 0.5).collect();
    let (mut p, mut m, mut v) = (vec![0.5f32; n], vec![0f32; n], vec![0f32; n]);
    group.throughput(Throughput::Elements(n as u64));
    let (mut a, mut b) = (vec![0.1f32; n], vec![0f32; n]);
    group.bench_function("gradient_descent", |bench| {
        bench.iter(|| apply_dense([&mut p], &grad, GradientDescent { alpha: 1e-3 }, &env));
    });
    group.bench_function("momentum", |bench| {
        bench.iter(|| apply_dense([&mut p, &mut m], &grad, Momentum::<f32, false> { lr: 1e-3, momentum: 0.9 }, &env));
    });
    let h = Adam::<f32, false>::new(1e-3, 0.9, 0.999, 0.9, 0.999, 1e-8);
    group.bench_function("adam", |bench| {
        bench.iter(|| apply_dense([&mut p, &mut m, &mut v], &grad, h, &env));
    });
    group.bench_function("adagrad", |bench| {
        bench.iter(|| apply_dense([&mut p, &mut a], &grad, Adagrad::<f32, true> { lr: 1e-3 }, &env));
    });
    group.bench_function("proximal_adagrad", |bench| {
        let h = ProximalAdagrad(ProximalGradientDescent::new(1e-3, 1e-4, 1e-4));
        bench.iter(|| apply_dense([&mut p, &mut a], &grad, h, &env));
    });
    group.bench_function("adadelta", |bench| {
        bench.iter(|| {
            apply_dense([&mut p, &mut a, &mut b], &grad, Adadelta { lr: 1.0, rho: 0.95, epsilon: 1e-8 }, &env)
        });
    });
    let rms = RmsProp { lr: 1e-3, rho: 0.9, momentum: 0.9, epsilon: 1e-10 };
    group.bench_function("rmsprop", |bench| {
        bench.iter(|| apply_dense([&mut p, &mut a, &mut b], &grad, rms, &env));
    });
    group.bench_function("centered_rmsprop", |bench| {
        bench.iter(|| apply_dense([&mut p, &mut m, &mut a, &mut b], &grad, CenteredRmsProp(rms), &env));
    });
    let ftrl = Ftrl::<f32, true, false> { lr: 0.1, l1: 1e-3, l2: 1e-3, l2_shrinkage: 0.0, lr_power: -0.5 };
    group.bench_function("ftrl", |bench| {
        bench.iter(|| apply_dense([&mut p, &mut a, &mut b], &grad, ftrl, &env));
    });
    group.finish();
}

criterion_group!(benches, bench_matmul, bench_elementwise, bench_conv, bench_optimizer_updates);
criterion_main!(benches);
