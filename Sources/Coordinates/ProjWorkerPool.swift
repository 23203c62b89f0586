import Foundation

/// A lock-protected pool of PROJ workers for one transformation.
///
/// PROJ objects are not thread-safe, so each thread that transforms borrows a worker (its own
/// `PJ_CONTEXT` and operation), uses it alone and gives it back. Workers are made on demand, so
/// the pool grows to the number of threads that ever transform at once; at most `maxIdle` are kept.
final class ProjWorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [ProjWorker] = []
    /// Workers in existence (idle or lent out).
    private var alive: Int
    private let maxIdle: Int
    private let make: @Sendable () throws(CoordinateError) -> ProjWorker

    init(first: ProjWorker, maxIdle: Int = 16, make: @escaping @Sendable () throws(CoordinateError) -> ProjWorker) {
        self.idle = [first]
        alive = 1
        self.maxIdle = maxIdle
        self.make = make
    }

    /// Runs `body` with a worker that no other thread uses meanwhile, made when none is idle.
    func withWorker<R>(_ body: (ProjWorker) -> R) throws(CoordinateError) -> R {
        let worker = try borrow(waiting: false)
        defer { giveBack(worker) }
        return body(worker)
    }

    /// Runs `body` with a worker that no other thread uses meanwhile, waiting for a busy one
    /// rather than making another: for the few points near a rounding boundary in each part of
    /// a CLI run, where a wait costs microseconds and a new worker milliseconds (its own PROJ
    /// database connection and operation search) that a short-lived process would not win back.
    /// Never call it while holding a worker of the same pool: with that one alone, it would
    /// wait for ever.
    func withSharedWorker<R>(_ body: (ProjWorker) -> R) throws(CoordinateError) -> R {
        let worker = try borrow(waiting: true)
        defer { giveBack(worker) }
        return body(worker)
    }

    private func borrow(waiting: Bool) throws(CoordinateError) -> ProjWorker {
        condition.lock()
        while waiting && idle.isEmpty && alive > 0 { condition.wait() }
        if let w = idle.popLast() {
            condition.unlock()
            return w
        }
        alive += 1
        condition.unlock()
        do {
            return try make()
        } catch {
            condition.lock()
            alive -= 1
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ worker: ProjWorker) {
        condition.lock()
        if idle.count < maxIdle {
            idle.append(worker)
        } else {
            alive -= 1  // dropped: a waiter may now have to make one
        }
        condition.signal()
        condition.unlock()
    }

    /// How many workers wait idle (for tests and diagnostics).
    var idleCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return idle.count
    }

    /// How many workers exist, idle or in use (for tests and diagnostics).
    var workerCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return alive
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
