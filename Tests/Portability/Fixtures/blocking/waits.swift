import Foundation

// The blocking-wait check's self-test: each line marked as expected must be reported, no other.
func waits(_ process: Process, _ pipe: Pipe) throws {
    process.waitUntilExit()  // expect: blocking-wait
    _ = pipe.fileHandleForReading.readDataToEndOfFile()  // expect: blocking-wait
    _ = try pipe.fileHandleForReading.read(upToCount: 1)  // expect: blocking-wait
    _ = pipe.fileHandleForReading.readData(ofLength: 1)  // expect: blocking-wait
    var status: Int32 = 0
    _ = waitpid(process.processIdentifier, &status, 0)  // expect: blocking-wait
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()  // brief: reaping a child just killed
    process.waitUntilExit()  // off pool: the same exemption
    // process.waitUntilExit() in a comment is not a call
}
