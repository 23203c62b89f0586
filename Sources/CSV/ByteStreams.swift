#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure reading or writing a byte stream; the message names the stream and the cause.
public struct ByteStreamError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}

/// A forward-only stream of bytes read in chunks (a file, standard input, a converter).
///
/// Used by one thread at a time.
public protocol ByteSource: AnyObject {
    /// The next chunk, or nil at the end of the stream. Chunks are never empty.
    func nextChunk() throws -> [UInt8]?
    /// Bytes consumed from the underlying file so far (before any conversion).
    var bytesConsumed: Int64 { get }
    /// The size of the underlying file when known (a regular file), else nil.
    var totalBytes: Int64? { get }
}

/// A destination for bytes (a file, standard output, memory in tests).
public protocol ByteSink: AnyObject {
    /// Writes every byte or throws.
    func write(_ bytes: [UInt8]) throws
    /// Pushes buffered bytes to the destination.
    func flush() throws
}

/// Reads a file descriptor (a file or standard input) in fixed-size chunks.
public final class FileDescriptorSource: ByteSource {
    private let fd: Int32
    private let name: String
    private let chunkSize: Int
    private let ownsDescriptor: Bool
    public private(set) var bytesConsumed: Int64 = 0
    public let totalBytes: Int64?

    /// Wraps an open descriptor; `name` appears in error messages.
    public init(fileDescriptor fd: Int32, name: String, chunkSize: Int = 1 << 16, closeOnDeinit: Bool = false) {
        self.fd = fd
        self.name = name
        self.chunkSize = max(16, chunkSize)
        self.ownsDescriptor = closeOnDeinit
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            totalBytes = Int64(st.st_size)
        } else {
            totalBytes = nil
        }
    }

    /// Opens `path` for reading; throws naming the path when it cannot be opened or is a folder.
    public convenience init(path: String, chunkSize: Int = 1 << 16) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ByteStreamError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw ByteStreamError("cannot read \(path): it is a folder")
        }
        self.init(fileDescriptor: fd, name: path, chunkSize: chunkSize, closeOnDeinit: true)
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    public func nextChunk() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if n < chunk.count { chunk.removeSubrange(n...) }
                bytesConsumed += Int64(n)
                return chunk
            }
            if n == 0 { return nil }
            if errno == EINTR { continue }
            throw ByteStreamError("cannot read \(name): \(String(cString: strerror(errno)))")
        }
    }
}

/// Writes to a file descriptor through a buffer, retrying short writes and interruptions.
public final class FileDescriptorSink: ByteSink {
    private let fd: Int32
    private let name: String
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 16

    /// Wraps an open descriptor; `name` appears in error messages.
    public init(fileDescriptor fd: Int32, name: String, closeOnDeinit: Bool = false) {
        self.fd = fd
        self.name = name
        self.ownsDescriptor = closeOnDeinit
        buffer.reserveCapacity(bufferLimit)
    }

    /// Creates or truncates `path` (or, with `appendingAfter`, keeps its first that many bytes and
    /// writes after them); throws naming the path when it cannot be written.
    public convenience init(path: String, appendingAfter kept: Int? = nil) throws {
        let fd = open(path, O_WRONLY | O_CREAT | (kept == nil ? O_TRUNC : 0) | O_CLOEXEC, 0o644)
        if let kept, fd >= 0 {
            guard ftruncate(fd, off_t(kept)) == 0, lseek(fd, off_t(kept), SEEK_SET) == off_t(kept) else {
                let why = String(cString: strerror(errno))
                close(fd)
                throw ByteStreamError("cannot write \(path): \(why)")
            }
        }
        guard fd >= 0 else {
            throw ByteStreamError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        self.init(fileDescriptor: fd, name: path, closeOnDeinit: true)
    }

    deinit {
        try? flush()
        if ownsDescriptor { close(fd) }
    }

    public func write(_ bytes: [UInt8]) throws {
        if buffer.count + bytes.count > bufferLimit {
            try flush()
            if bytes.count >= bufferLimit {
                try writeAll(bytes)
                return
            }
        }
        buffer.append(contentsOf: bytes)
    }

    public func flush() throws {
        guard !buffer.isEmpty else { return }
        let pending = buffer
        buffer.removeAll(keepingCapacity: true)
        try writeAll(pending)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = posixWrite(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                throw ByteStreamError("cannot write \(name): \(String(cString: strerror(errno)))")
            }
        }
    }
}

/// Collects written bytes in memory (for tests and small outputs).
public final class MemorySink: ByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: [UInt8]) throws { self.bytes.append(contentsOf: bytes) }
    public func flush() throws {}
    /// The bytes as UTF-8 text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Serves an in-memory byte array in chunks of a chosen size (for tests of chunk boundaries).
public final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private let chunkSize: Int
    private var offset = 0
    public var bytesConsumed: Int64 { Int64(offset) }
    public var totalBytes: Int64? { Int64(bytes.count) }

    public init(_ bytes: [UInt8], chunkSize: Int = 1 << 16) {
        self.bytes = bytes
        self.chunkSize = max(1, chunkSize)
    }

    public convenience init(_ text: String, chunkSize: Int = 1 << 16) {
        self.init(Array(text.utf8), chunkSize: chunkSize)
    }

    public func nextChunk() throws -> [UInt8]? {
        guard offset < bytes.count else { return nil }
        let end = min(bytes.count, offset + chunkSize)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// `write(2)`, named apart from the sinks' own `write` method.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}
