"""What the PyInstaller bundle leaves out (read by roofgui.spec and by tests/test_packaging.py).

The app imports QtCore, QtGui, QtWidgets and QtSvg (window icon, SVG export);
pyqtgraph 0.14 also imports QtOpenGL and QtOpenGLWidgets unconditionally. Nothing
else from PySide6 is needed; tests/test_packaging.py imports the app and checks that no
module it loads is listed here.
"""

#: PySide6 modules left out (including QtTest, which pyqtgraph tries but does not need).
QT_EXCLUDES = [
    "PySide6." + m for m in (
        "Qt3DAnimation Qt3DCore Qt3DExtras Qt3DInput Qt3DLogic Qt3DRender QtAxContainer "
        "QtBluetooth QtCanvasPainter QtCharts QtConcurrent QtDBus QtDataVisualization QtDesigner "
        "QtGraphs QtGraphsWidgets QtHelp QtHttpServer QtLocation QtMultimedia "
        "QtMultimediaWidgets QtNetwork QtNetworkAuth QtNfc QtPdf "
        "QtPdfWidgets QtPositioning QtPrintSupport QtQml QtQuick QtQuick3D QtQuickControls2 "
        "QtQuickTest QtQuickWidgets QtRemoteObjects QtScxml QtSensors QtSerialBus QtSerialPort "
        "QtSpatialAudio QtSql QtStateMachine QtSvgWidgets QtTest QtTextToSpeech QtUiTools "
        "QtWebChannel QtWebEngineCore QtWebEngineQuick QtWebEngineWidgets QtWebSockets "
        "QtWebView QtXml"
    ).split()
]

#: Other Python packages that must not ride along (other Qt bindings, test and build tools,
#: optional pyqtgraph extras the app does not use).
OTHER_EXCLUDES = [
    "PyQt5", "PyQt6", "PySide2", "tkinter", "_tkinter", "matplotlib", "scipy", "pandas",
    "IPython", "jupyter_client", "pytest", "hypothesis", "PyInstaller", "setuptools",
    "pkg_resources", "pyqtgraph.opengl", "pyqtgraph.examples", "pyqtgraph.jupyter",
    "OpenGL", "cupy", "numba", "h5py", "colorcet",
]

#: Libraries and plugins (by path fragment inside the bundle) that come along with
#: PyInstaller's Qt plugin collection but that nothing in the app loads. Platform plugins
#: kept: xcb, wayland, offscreen, minimal.
DROP_BINARY_PATTERNS = (
    "libQt6Quick", "libQt6Qml", "libQt6Pdf", "libQt6Network",
    "libQt6VirtualKeyboard", "libQt6Designer", "libQt6Sql", "libQt6Test", "libQt6Xml",
    "libQt6WebEngine", "libQt6Multimedia", "libQt6Positioning", "libQt6SvgWidgets",
    "/platforms/libqvnc", "/platforms/libqeglfs", "/platforms/libqlinuxfb",
    "/platforms/libqminimalegl", "/platforms/libqvkkhrdisplay", "/egldeviceintegrations/",
    "/platforminputcontexts/libqtvirtualkeyboard", "/sqldrivers/", "/qmltooling/",
    "/networkinformation/", "/tls/", "/printsupport/", "/designer/",
    "/generic/libqtuiotouchplugin",  # TUIO touch over the network: needs QtNetwork
    # The GTK3 platform theme would load the system's GTK against bundled copies of
    # cairo/pango/glib (a classic source of crashes); Qt's own style is used instead.
    "/platformthemes/libqgtk3",
)

#: Collected only as dependencies, but loaded at run time without a DT_NEEDED link
#: (the bootloader loads libpython; QtDBus dlopen()s libdbus-1).
ALWAYS_KEEP = ("libpython", "libdbus-1")
