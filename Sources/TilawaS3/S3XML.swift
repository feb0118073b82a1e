import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The few XML documents S3 answers with (`Error`, `ListBucketResult`,
/// `InitiateMultipartUploadResult`), read into a small element tree.
struct S3XML {
    final class Element {
        let name: String
        var text = ""
        var children: [Element] = []

        init(name: String) { self.name = name }

        /// The text of the first child named `name`.
        func value(_ name: String) -> String? { children.first { $0.name == name }?.text }
        /// Every child named `name`.
        func all(_ name: String) -> [Element] { children.filter { $0.name == name } }
    }

    /// The document's root element; nil when `data` is not well-formed XML.
    static func parse(_ data: Data) -> Element? {
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = builder
        guard parser.parse() else { return nil }
        return builder.root
    }

    /// Escapes text for an element's content.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let element = Element(name: elementName)
            if let parent = stack.last { parent.children.append(element) } else { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}
