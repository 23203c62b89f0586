/// A `read` function for `CSVCoordinateTransform.run` that hands out `input` from memory, in
/// reads of at most `readSize` bytes, then 0 at the end.
func memoryReader(_ input: [UInt8], readSize: Int = .max) -> (UnsafeMutableRawBufferPointer) -> Int {
    var position = 0
    return { buffer in
        let n = min(buffer.count, readSize, input.count - position)
        for i in 0..<n { buffer[i] = input[position + i] }
        position += n
        return n
    }
}
