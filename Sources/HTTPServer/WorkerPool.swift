import Foundation

/// A fixed set of threads draining a bounded FIFO of jobs.
///
/// `submit` refuses a job when the queue is full, which is how the server knows to answer
/// 503 instead of queueing without bound.
final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    /// A job returns what to do once it no longer counts as running (the hand-back of its
    /// result), so whoever receives the result already sees the pool idle.
    typealias Job = () -> (() -> Void)?
    /// Waiting jobs from `head` on; a slot is emptied when its job is taken, so a finished job's
    /// captures (a request's body, its answer: megabytes for a table) are freed at once rather
    /// than when the array is next compacted.
    private var jobs: [Job?] = []
    private var head = 0
    private let capacity: Int
    private var stopping = false
    private var threads: [Thread] = []
    /// Jobs being run right now.
    private var running = 0

    static let markerKey = "taxipot.http.worker"

    /// True on a worker thread of any pool.
    static var isWorkerThread: Bool { Thread.current.threadDictionary[markerKey] as? Bool ?? false }

    /// `onStart` runs first on each thread (the bulk pool lowers its threads' priority there).
    init(threads count: Int, queueCapacity: Int, onStart: (@Sendable () -> Void)? = nil) {
        capacity = queueCapacity
        for i in 0..<count {
            let t = Thread { [unowned self] in
                Thread.current.threadDictionary[WorkerPool.markerKey] = true
                onStart?()
                self.loop()
            }
            t.stackSize = 1 << 20
            threads.append(t)
            t.start()
        }
    }

    /// True when no job waits and none is running.
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count == head && running == 0
    }

    /// Number of jobs waiting (not yet picked up by a worker).
    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    /// Enqueues `job`; false when the queue already holds `queueCapacity` jobs.
    func submit(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, jobs.count - head < capacity else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    private func loop() {
        while true {
            condition.lock()
            while head == jobs.count && !stopping { condition.wait() }
            if head == jobs.count && stopping {
                condition.unlock()
                return
            }
            let job = jobs[head]!
            jobs[head] = nil
            head += 1
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            running += 1
            condition.unlock()
            let handBack = job()
            condition.lock()
            running -= 1
            condition.unlock()
            handBack?()
        }
    }

    /// Lets queued jobs finish, then ends the threads.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }
}
