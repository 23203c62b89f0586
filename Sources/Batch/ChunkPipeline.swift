import CSV
import Foundation

/// A run of consecutive input rows, the unit of work handed to a worker.
struct RowChunk: Sendable {
    /// Position in the input: chunks are written in this order.
    let sequence: Int
    let records: [CSVRecord]
    /// Input bytes the chunk's records hold.
    let byteCount: Int
    /// Bytes of the input file read when the chunk was closed (for progress and ETA).
    let inputOffset: Int64
}

/// A worker's output for one chunk: the formatted rows and their outcome counts.
struct ChunkOutput: Sendable {
    let sequence: Int
    let rows: Int
    let byteCount: Int
    let inputOffset: Int64
    /// The output CSV text of the chunk's rows.
    let bytes: [UInt8]
    let okRows: Int
    /// Failed rows: error code and input line.
    let failures: [(code: RowErrorCode, line: Int)]
}

/// The hand-off between the reader, the workers and the writer, with bounded memory.
///
/// The reader may have at most `maxChunksInFlight` chunks read but not yet written: it waits
/// for the writer before reading more. So the reorder buffer (finished chunks waiting for an
/// earlier, slower one) and the work queue can never together hold more than that many
/// chunks, whatever the input size or the speed of single rows.
final class ChunkPipeline: @unchecked Sendable {
    private let condition = NSCondition()
    private let maxChunksInFlight: Int
    private var queued: [RowChunk] = []
    private var queueHead = 0
    private var finished: [Int: ChunkOutput] = [:]
    private var chunksInFlight = 0
    private var submitted = 0
    private var inputClosed = false
    private var cancelled = false

    private(set) var bufferedRows = 0
    private(set) var bufferedBytes = 0
    private(set) var peakBufferedRows = 0
    private(set) var peakBufferedBytes = 0
    private(set) var peakChunksInFlight = 0

    init(maxChunksInFlight: Int) {
        self.maxChunksInFlight = max(1, maxChunksInFlight)
    }

    /// Reader: queues a chunk, waiting while too many are in flight. False when the run was cancelled.
    func submit(_ chunk: RowChunk) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while chunksInFlight >= maxChunksInFlight && !cancelled { condition.wait() }
        if cancelled { return false }
        queued.append(chunk)
        chunksInFlight += 1
        submitted += 1
        bufferedRows += chunk.records.count
        bufferedBytes += chunk.byteCount
        peakBufferedRows = max(peakBufferedRows, bufferedRows)
        peakBufferedBytes = max(peakBufferedBytes, bufferedBytes)
        peakChunksInFlight = max(peakChunksInFlight, chunksInFlight)
        condition.broadcast()
        return true
    }

    /// Reader: no more chunks will come.
    func closeInput() {
        condition.lock()
        inputClosed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Worker: the next chunk to process, or nil when there is no more work.
    func take() -> RowChunk? {
        condition.lock()
        defer { condition.unlock() }
        while queueHead >= queued.count && !inputClosed && !cancelled { condition.wait() }
        if cancelled || queueHead >= queued.count { return nil }
        let chunk = queued[queueHead]
        queueHead += 1
        if queueHead > 64 && queueHead * 2 > queued.count {
            queued.removeFirst(queueHead)
            queueHead = 0
        }
        return chunk
    }

    /// Worker: a finished chunk.
    func complete(_ output: ChunkOutput) {
        condition.lock()
        finished[output.sequence] = output
        condition.broadcast()
        condition.unlock()
    }

    /// Writer: the output of chunk `sequence` once it is ready; `.end` when the input ended
    /// before it; `.waiting` when `deadline` passed first (so the writer can report progress).
    func output(_ sequence: Int, waitingUntil deadline: Date) -> PipelineOutput {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let out = finished.removeValue(forKey: sequence) { return .chunk(out) }
            if cancelled || (inputClosed && sequence >= submitted) { return .end }
            if !condition.wait(until: deadline) { return .waiting }
        }
    }

    /// Writer: a chunk has been written, making room for the reader.
    func release(_ output: ChunkOutput) {
        condition.lock()
        chunksInFlight -= 1
        bufferedRows -= output.rows
        bufferedBytes -= output.byteCount
        condition.broadcast()
        condition.unlock()
    }

    /// Stops everyone: the reader stops reading, workers stop taking work.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}

/// What the writer gets from the pipeline.
enum PipelineOutput {
    case chunk(ChunkOutput)
    case waiting
    case end
}
