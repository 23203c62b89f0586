print("taxipot-bench: benchmarks are added by the benchmarks issue")
