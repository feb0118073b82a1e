import CFFmpeg
import Foundation
import TilawaCore

/// Converting decoded frames to mono Float32 at the target rate (libswresample) and handing them on.
extension AudioDecoder {
    func convert(
        frame: UnsafeMutablePointer<AVFrame>,
        into sink: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws -> Int {
        let format = frame.pointee.format
        let rate = frame.pointee.sample_rate > 0 ? frame.pointee.sample_rate : codecContext?.pointee.sample_rate ?? 0
        let channels = frame.pointee.ch_layout.nb_channels
        guard channels > 0, rate > 0 else { throw AudioRejection.unreadable(detail: "frame without channels or rate") }
        var flushed = 0
        if let current = resamplerInput, current != (format, rate, channels) {
            // The stream changed shape mid-file (rare, but legal in some containers): finish
            // the old conversion before starting a new one, so no sample is dropped.
            flushed = try flushResampler(into: sink)
            swr_free(&resampler)
        }
        if resampler == nil {
            try makeResampler(format: format, rate: rate, layout: &frame.pointee.ch_layout)
            resamplerInput = (format, rate, channels)
        }
        let capacity = Int(swr_get_out_samples(resampler, frame.pointee.nb_samples)) + 32
        if output.count < capacity { output = [Float](repeating: 0, count: capacity) }
        let inputData = UnsafeMutableRawPointer(frame.pointee.extended_data)!
            .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let count = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var outPointer: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer.baseAddress!)
                .assumingMemoryBound(to: UInt8.self)
            return swr_convert(resampler, &outPointer, Int32(buffer.count), inputData, frame.pointee.nb_samples)
        }
        guard count >= 0 else { throw AudioRejection.unreadable(detail: "resampling failed: \(Self.errorString(count))") }
        try deliver(Int(count), to: sink)
        return flushed + Int(count)
    }

    func makeResampler(format: Int32, rate: Int32, layout: UnsafeMutablePointer<AVChannelLayout>) throws {
        var inputLayout = AVChannelLayout()
        if layout.pointee.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, layout.pointee.nb_channels)
        } else {
            guard av_channel_layout_copy(&inputLayout, layout) >= 0 else {
                throw AudioRejection.unreadable(detail: "invalid channel layout")
            }
        }
        defer { av_channel_layout_uninit(&inputLayout) }
        var mono = AVChannelLayout()
        av_channel_layout_default(&mono, 1)
        defer { av_channel_layout_uninit(&mono) }

        var context: OpaquePointer? = nil
        var status = swr_alloc_set_opts2(
            &context, &mono, AV_SAMPLE_FMT_FLT, Self.outputSampleRate,
            &inputLayout, AVSampleFormat(format), rate, 0, nil)
        guard status >= 0, context != nil else {
            throw AudioRejection.unreadable(detail: "cannot convert this sample format")
        }
        // Mean of all channels: unity gain for a mono source duplicated to N channels, and
        // no overload however the channels add up.
        let channels = Int(inputLayout.nb_channels)
        let matrix = [Double](repeating: 1 / Double(channels), count: channels)
        status = swr_set_matrix(context, matrix, Int32(channels))
        if status >= 0 { status = swr_init(context) }
        guard status >= 0 else {
            swr_free(&context)
            throw AudioRejection.unreadable(detail: "cannot set up resampling: \(Self.errorString(status))")
        }
        resampler = context
    }

    /// Hands the first `count` converted samples to `sink`, refusing a block with a NaN or an
    /// infinity: a float file can carry them (or values beyond Float's range, which become
    /// infinite here), and no later stage could measure, draw or encode them.
    func deliver(_ count: Int, to sink: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        try output.withUnsafeBufferPointer { converted in
            let block = UnsafeBufferPointer(rebasing: converted[0..<count])
            if SampleScan.containsNonFinite(block) {
                throw AudioRejection.unreadable(detail: "damaged samples (not a number, or infinite)")
            }
            try sink(block)
        }
    }

    /// Drains what libswresample holds back for its filter, so the tail is not lost.
    func flushResampler(into sink: (UnsafeBufferPointer<Float>) throws -> Void) throws -> Int {
        guard resampler != nil else { return 0 }
        var total = 0
        if output.count < 4096 { output = [Float](repeating: 0, count: 4096) }
        while true {
            let count = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var outPointer: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer.baseAddress!)
                    .assumingMemoryBound(to: UInt8.self)
                return swr_convert(resampler, &outPointer, Int32(buffer.count), nil, 0)
            }
            guard count > 0 else { break }
            try deliver(Int(count), to: sink)
            total += Int(count)
        }
        return total
    }
}
