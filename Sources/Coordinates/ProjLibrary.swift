import CProj
import Foundation

/// Debian's PROJ, loaded when a transformation is first made instead of when the process starts.
///
/// libproj brings 45 shared libraries with it (libcurl, GnuTLS, Kerberos, LDAP, libtiff, …):
/// linked in, the dynamic loader maps and relocates them all before `main`, about 11 ms on
/// these machines, for every command and every server start, even those that never convert a
/// coordinate. So the executables do not link libproj; the first `ProjWorker` opens it with
/// `dlopen` (about as long as the loader took) and looks up the functions the engine uses. The
/// functions at the end of this file have the names and signatures of PROJ's own (declarations
/// in this module come before imported ones), so the rest of the module calls PROJ as if it
/// were linked.
enum ProjLibrary {
    /// The names tried, in order: the soname of the libproj25 package (PROJ 9), then the
    /// development symlink that `libproj-dev` installs.
    static let candidates = ["libproj.so.25", "libproj.so"]

    /// The loaded functions, or why loading failed (checked once, on first use).
    fileprivate static let loaded: Result<Functions, LoadError> = Functions.load()

    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    /// Loads PROJ if it is not loaded yet; throws when it cannot be (not installed, or missing a function).
    static func require() throws(LoadError) {
        if case .failure(let error) = loaded { throw error }
    }

    @inline(__always)
    fileprivate static var f: Functions {
        switch loaded {
        case .success(let functions): return functions
        // Every PROJ object comes from a context that `ProjWorker` makes after `require()`.
        case .failure(let error): fatalError("PROJ used before it was loaded: \(error)")
        }
    }
}

/// The PROJ functions the engine calls, looked up in the loaded library.
private struct Functions: @unchecked Sendable {
    typealias CString = UnsafePointer<CChar>
    typealias OutString = UnsafeMutablePointer<UnsafePointer<CChar>?>
    typealias OutDouble = UnsafeMutablePointer<Double>
    typealias Options = UnsafePointer<UnsafePointer<CChar>?>
    typealias CtxObj = @convention(c) (OpaquePointer?, OpaquePointer?) -> OpaquePointer?
    typealias Obj = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias AsProjString = @convention(c) (OpaquePointer?, OpaquePointer?, PJ_PROJ_STRING_TYPE, Options?) -> CString?
    typealias ContextCreate = @convention(c) () -> OpaquePointer?
    typealias ContextErrno = @convention(c) (OpaquePointer?) -> Int32
    typealias ContextErrnoString = @convention(c) (OpaquePointer?, Int32) -> CString?
    typealias ContextInt = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias Create = @convention(c) (OpaquePointer?, CString?) -> OpaquePointer?
    typealias CreateCRSToCRS = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?, Options?) -> OpaquePointer?
    typealias AlterLinearUnit = @convention(c) (OpaquePointer?, OpaquePointer?, CString?, Double, CString?, CString?) -> OpaquePointer?
    typealias SubCRS = @convention(c) (OpaquePointer?, OpaquePointer?, Int32) -> OpaquePointer?
    typealias AxisInfo = @convention(c) (OpaquePointer?, OpaquePointer?, Int32, OutString?, OutString?, OutString?, OutDouble?,
                                         OutString?, OutString?, OutString?) -> Int32
    typealias EllipsoidParameters = @convention(c) (OpaquePointer?, OpaquePointer?, OutDouble?, OutDouble?,
                                                    UnsafeMutablePointer<Int32>?, OutDouble?) -> Int32
    typealias AreaOfUse = @convention(c) (OpaquePointer?, OpaquePointer?, OutDouble?, OutDouble?, OutDouble?, OutDouble?, OutString?) -> Int32
    typealias GetName = @convention(c) (OpaquePointer?) -> CString?
    typealias GetType = @convention(c) (OpaquePointer?) -> PJ_TYPE
    typealias IsCRS = @convention(c) (OpaquePointer?) -> Int32
    typealias LogLevel = @convention(c) (OpaquePointer?, PJ_LOG_LEVEL) -> PJ_LOG_LEVEL
    typealias Trans = @convention(c) (OpaquePointer?, PJ_DIRECTION, PJ_COORD) -> PJ_COORD
    typealias TransGeneric = @convention(c) (OpaquePointer?, PJ_DIRECTION, OutDouble?, Int, Int, OutDouble?, Int, Int,
                                             OutDouble?, Int, Int, OutDouble?, Int, Int) -> Int

    let asProjString: AsProjString
    let clone: CtxObj
    let contextCreate: ContextCreate
    let contextDestroy: Obj
    let contextErrno: ContextErrno
    let contextErrnoString: ContextErrnoString
    let contextSetEnableNetwork: ContextInt
    let create: Create
    let createCRSToCRSFromPJ: CreateCRSToCRS
    let crsAlterCSLinearUnit: AlterLinearUnit
    let crsGetCoordinateSystem: CtxObj
    let crsGetSubCRS: SubCRS
    let csGetAxisInfo: AxisInfo
    let destroy: Obj
    let ellipsoidGetParameters: EllipsoidParameters
    let getAreaOfUse: AreaOfUse
    let getEllipsoid: CtxObj
    let getName: GetName
    let getSourceCRS: CtxObj
    let getType: GetType
    let isCRS: IsCRS
    let logLevel: LogLevel
    let normalizeForVisualization: CtxObj
    let trans: Trans
    let transGeneric: TransGeneric

    /// Looks every function up in `handle`; throws naming the first one missing.
    init(_ handle: UnsafeMutableRawPointer) throws(ProjLibrary.LoadError) {
        func sym<T>(_ name: String, _ type: T.Type) throws(ProjLibrary.LoadError) -> T {
            guard let symbol = dlsym(handle, name) else { throw .init(description: "the PROJ library lacks \(name)") }
            return unsafeBitCast(symbol, to: type)
        }
        asProjString = try sym("proj_as_proj_string", AsProjString.self)
        clone = try sym("proj_clone", CtxObj.self)
        contextCreate = try sym("proj_context_create", ContextCreate.self)
        contextDestroy = try sym("proj_context_destroy", Obj.self)
        contextErrno = try sym("proj_context_errno", ContextErrno.self)
        contextErrnoString = try sym("proj_context_errno_string", ContextErrnoString.self)
        contextSetEnableNetwork = try sym("proj_context_set_enable_network", ContextInt.self)
        create = try sym("proj_create", Create.self)
        createCRSToCRSFromPJ = try sym("proj_create_crs_to_crs_from_pj", CreateCRSToCRS.self)
        crsAlterCSLinearUnit = try sym("proj_crs_alter_cs_linear_unit", AlterLinearUnit.self)
        crsGetCoordinateSystem = try sym("proj_crs_get_coordinate_system", CtxObj.self)
        crsGetSubCRS = try sym("proj_crs_get_sub_crs", SubCRS.self)
        csGetAxisInfo = try sym("proj_cs_get_axis_info", AxisInfo.self)
        destroy = try sym("proj_destroy", Obj.self)
        ellipsoidGetParameters = try sym("proj_ellipsoid_get_parameters", EllipsoidParameters.self)
        getAreaOfUse = try sym("proj_get_area_of_use", AreaOfUse.self)
        getEllipsoid = try sym("proj_get_ellipsoid", CtxObj.self)
        getName = try sym("proj_get_name", GetName.self)
        getSourceCRS = try sym("proj_get_source_crs", CtxObj.self)
        getType = try sym("proj_get_type", GetType.self)
        isCRS = try sym("proj_is_crs", IsCRS.self)
        logLevel = try sym("proj_log_level", LogLevel.self)
        normalizeForVisualization = try sym("proj_normalize_for_visualization", CtxObj.self)
        trans = try sym("proj_trans", Trans.self)
        transGeneric = try sym("proj_trans_generic", TransGeneric.self)
    }

    static func load() -> Result<Functions, ProjLibrary.LoadError> {
        var why: [String] = []
        for name in ProjLibrary.candidates {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                do throws(ProjLibrary.LoadError) {
                    return .success(try Functions(handle))
                } catch {
                    return .failure(error)
                }
            }
            why.append(dlerror().map { String(cString: $0) } ?? name)
        }
        return .failure(.init(description: "the PROJ library could not be loaded (install libproj25 or libproj-dev): "
                              + why.joined(separator: "; ")))
    }
}

// MARK: - PROJ's functions, by their own names

// (`ProjWorker` calls `ProjLibrary.require()` before it makes a context, and every PROJ
// object the engine uses belongs to a worker's context.)

func proj_as_proj_string(_ ctx: OpaquePointer?, _ obj: OpaquePointer?, _ type: PJ_PROJ_STRING_TYPE,
                         _ options: UnsafePointer<UnsafePointer<CChar>?>?) -> UnsafePointer<CChar>? {
    ProjLibrary.f.asProjString(ctx, obj, type, options)
}

func proj_clone(_ ctx: OpaquePointer?, _ obj: OpaquePointer?) -> OpaquePointer? { ProjLibrary.f.clone(ctx, obj) }

func proj_context_create() -> OpaquePointer? { ProjLibrary.f.contextCreate() }

@discardableResult
func proj_context_destroy(_ ctx: OpaquePointer?) -> OpaquePointer? { ProjLibrary.f.contextDestroy(ctx) }

func proj_context_errno(_ ctx: OpaquePointer?) -> Int32 { ProjLibrary.f.contextErrno(ctx) }

func proj_context_errno_string(_ ctx: OpaquePointer?, _ err: Int32) -> UnsafePointer<CChar>? {
    ProjLibrary.f.contextErrnoString(ctx, err)
}

func proj_context_set_enable_network(_ ctx: OpaquePointer?, _ enabled: Int32) -> Int32 {
    ProjLibrary.f.contextSetEnableNetwork(ctx, enabled)
}

func proj_create(_ ctx: OpaquePointer?, _ definition: UnsafePointer<CChar>?) -> OpaquePointer? {
    ProjLibrary.f.create(ctx, definition)
}

func proj_create_crs_to_crs_from_pj(_ ctx: OpaquePointer?, _ source: OpaquePointer?, _ target: OpaquePointer?,
                                    _ area: OpaquePointer?, _ options: UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer? {
    ProjLibrary.f.createCRSToCRSFromPJ(ctx, source, target, area, options)
}

func proj_crs_alter_cs_linear_unit(_ ctx: OpaquePointer?, _ obj: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                   _ conversion: Double, _ authority: UnsafePointer<CChar>?,
                                   _ code: UnsafePointer<CChar>?) -> OpaquePointer? {
    ProjLibrary.f.crsAlterCSLinearUnit(ctx, obj, name, conversion, authority, code)
}

func proj_crs_get_coordinate_system(_ ctx: OpaquePointer?, _ crs: OpaquePointer?) -> OpaquePointer? {
    ProjLibrary.f.crsGetCoordinateSystem(ctx, crs)
}

func proj_crs_get_sub_crs(_ ctx: OpaquePointer?, _ crs: OpaquePointer?, _ index: Int32) -> OpaquePointer? {
    ProjLibrary.f.crsGetSubCRS(ctx, crs, index)
}

func proj_cs_get_axis_info(_ ctx: OpaquePointer?, _ cs: OpaquePointer?, _ index: Int32,
                           _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ abbreviation: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                           _ direction: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ factor: UnsafeMutablePointer<Double>?,
                           _ unitName: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ unitAuthority: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                           _ unitCode: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    ProjLibrary.f.csGetAxisInfo(ctx, cs, index, name, abbreviation, direction, factor, unitName, unitAuthority, unitCode)
}

@discardableResult
func proj_destroy(_ obj: OpaquePointer?) -> OpaquePointer? { ProjLibrary.f.destroy(obj) }

func proj_ellipsoid_get_parameters(_ ctx: OpaquePointer?, _ ellipsoid: OpaquePointer?, _ a: UnsafeMutablePointer<Double>?,
                                   _ b: UnsafeMutablePointer<Double>?, _ computed: UnsafeMutablePointer<Int32>?,
                                   _ inverseFlattening: UnsafeMutablePointer<Double>?) -> Int32 {
    ProjLibrary.f.ellipsoidGetParameters(ctx, ellipsoid, a, b, computed, inverseFlattening)
}

func proj_get_area_of_use(_ ctx: OpaquePointer?, _ obj: OpaquePointer?, _ west: UnsafeMutablePointer<Double>?,
                          _ south: UnsafeMutablePointer<Double>?, _ east: UnsafeMutablePointer<Double>?,
                          _ north: UnsafeMutablePointer<Double>?, _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    ProjLibrary.f.getAreaOfUse(ctx, obj, west, south, east, north, name)
}

func proj_get_ellipsoid(_ ctx: OpaquePointer?, _ obj: OpaquePointer?) -> OpaquePointer? { ProjLibrary.f.getEllipsoid(ctx, obj) }

func proj_get_name(_ obj: OpaquePointer?) -> UnsafePointer<CChar>? { ProjLibrary.f.getName(obj) }

func proj_get_source_crs(_ ctx: OpaquePointer?, _ obj: OpaquePointer?) -> OpaquePointer? { ProjLibrary.f.getSourceCRS(ctx, obj) }

func proj_get_type(_ obj: OpaquePointer?) -> PJ_TYPE { ProjLibrary.f.getType(obj) }

func proj_is_crs(_ obj: OpaquePointer?) -> Int32 { ProjLibrary.f.isCRS(obj) }

@discardableResult
func proj_log_level(_ ctx: OpaquePointer?, _ level: PJ_LOG_LEVEL) -> PJ_LOG_LEVEL { ProjLibrary.f.logLevel(ctx, level) }

func proj_normalize_for_visualization(_ ctx: OpaquePointer?, _ obj: OpaquePointer?) -> OpaquePointer? {
    ProjLibrary.f.normalizeForVisualization(ctx, obj)
}

func proj_trans(_ p: OpaquePointer?, _ direction: PJ_DIRECTION, _ coord: PJ_COORD) -> PJ_COORD {
    ProjLibrary.f.trans(p, direction, coord)
}

func proj_trans_generic(_ p: OpaquePointer?, _ direction: PJ_DIRECTION,
                        _ x: UnsafeMutablePointer<Double>?, _ sx: Int, _ nx: Int,
                        _ y: UnsafeMutablePointer<Double>?, _ sy: Int, _ ny: Int,
                        _ z: UnsafeMutablePointer<Double>?, _ sz: Int, _ nz: Int,
                        _ t: UnsafeMutablePointer<Double>?, _ st: Int, _ nt: Int) -> Int {
    ProjLibrary.f.transGeneric(p, direction, x, sx, nx, y, sy, ny, z, sz, nz, t, st, nt)
}
