import Foundation

/// Paths shared by the test targets.
public enum TestPaths {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The embedded dataset folder, `data/`.
    public static var dataDir: URL { packageRoot.appendingPathComponent("data") }

    /// A fresh temporary folder, removed by the system's tmp cleanup.
    public static func temporaryDirectory(_ label: String = "taxipot") -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
