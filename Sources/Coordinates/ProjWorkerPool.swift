import Foundation

/// A lock-protected pool of PROJ workers for one transformation.
///
/// PROJ objects are not thread-safe, so each thread that transforms borrows a worker (its own
/// `PJ_CONTEXT` and operation), uses it alone and gives it back. Workers are made on demand, so
/// the pool grows to the number of threads that ever transform at once; at most `maxIdle` are kept.
final class ProjWorkerPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [ProjWorker] = []
    private let maxIdle: Int
    private let make: @Sendable () throws(CoordinateError) -> ProjWorker

    init(first: ProjWorker, maxIdle: Int = 16, make: @escaping @Sendable () throws(CoordinateError) -> ProjWorker) {
        self.idle = [first]
        self.maxIdle = maxIdle
        self.make = make
    }

    /// Runs `body` with a worker that no other thread uses meanwhile.
    func withWorker<R>(_ body: (ProjWorker) -> R) throws(CoordinateError) -> R {
        let worker = try borrow()
        defer { giveBack(worker) }
        return body(worker)
    }

    private func borrow() throws(CoordinateError) -> ProjWorker {
        lock.lock()
        if let w = idle.popLast() {
            lock.unlock()
            return w
        }
        lock.unlock()
        return try make()
    }

    private func giveBack(_ worker: ProjWorker) {
        lock.lock()
        if idle.count < maxIdle { idle.append(worker) }
        lock.unlock()
    }

    /// How many workers wait idle (for tests and diagnostics).
    var idleCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return idle.count
    }
}

/// A lock-protected pool of kernel scratch buffers, so that batches handled wholly by the kernels
/// borrow no PROJ worker (and a thread never has to build one just to stay idle).
final class KernelPlanPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [KernelPlan] = []
    let recipe: KernelRecipe

    init(_ recipe: KernelRecipe) {
        self.recipe = recipe
    }

    /// Runs `body` with a plan that no other thread uses meanwhile.
    func withPlan<R>(_ body: (KernelPlan) throws(CoordinateError) -> R) throws(CoordinateError) -> R {
        lock.lock()
        let plan = idle.popLast() ?? KernelPlan(recipe)
        lock.unlock()
        defer {
            lock.lock()
            if idle.count < 16 { idle.append(plan) }
            lock.unlock()
        }
        return try body(plan)
    }
}
