# tritongym_add_plugin(<target> MANIFEST <plugin.yaml> SOURCES <files...> [DATA <files...>]
#                      [OUTPUT_DIR <dir>] [FOLDER <name>] [NO_INSTALL])
#
# Builds a TritonGym plugin: a MODULE library linked to the SDK, with only its entry point exported,
# placed in <OUTPUT_DIR>/<FOLDER, default target>/ beside a copy of its plugin.yaml (the layout the host scans).
# OUTPUT_DIR defaults to TRITONGYM_PLUGIN_DIR when set (the in-tree build), else to
# ${CMAKE_BINARY_DIR}/plugins. The manifest's `library:` must name the file this target produces.
# DATA files (a DSL's reference, a price table) are copied beside the library, where the plugin finds
# them through PluginContext::plugin_dir.
function(tritongym_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_INSTALL" "MANIFEST;OUTPUT_DIR;FOLDER" "SOURCES;DATA")
  if(NOT ARG_MANIFEST)
    message(FATAL_ERROR "tritongym_add_plugin(${target}): MANIFEST plugin.yaml is required")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    if(DEFINED TRITONGYM_PLUGIN_DIR)
      set(ARG_OUTPUT_DIR ${TRITONGYM_PLUGIN_DIR})
    else()
      set(ARG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/plugins)
    endif()
  endif()
  if(NOT ARG_FOLDER)
    set(ARG_FOLDER ${target})
  endif()
  get_filename_component(manifest ${ARG_MANIFEST} ABSOLUTE)

  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE TritonGym::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}/${ARG_FOLDER})

  # The manifest names the library; catch a mismatch at configure time, not at load time.
  file(STRINGS ${manifest} library_line REGEX "^library:")
  string(REGEX REPLACE "^library:[ \t]*\"?([^\" \t#]+)\"?.*$" "\\1" declared "${library_line}")
  set(expected "lib${target}${CMAKE_SHARED_MODULE_SUFFIX}")
  if(NOT declared STREQUAL expected)
    message(FATAL_ERROR "${manifest}: `library: ${declared}` but target ${target} builds ${expected}")
  endif()
  configure_file(${manifest} ${ARG_OUTPUT_DIR}/${ARG_FOLDER}/plugin.yaml COPYONLY)
  foreach(data ${ARG_DATA})
    get_filename_component(data_path ${data} ABSOLUTE)
    get_filename_component(data_name ${data} NAME)
    configure_file(${data_path} ${ARG_OUTPUT_DIR}/${ARG_FOLDER}/${data_name} COPYONLY)
  endforeach()

  if(NOT ARG_NO_INSTALL AND DEFINED TRITONGYM_INSTALL_PLUGIN_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${TRITONGYM_INSTALL_PLUGIN_DIR}/${target})
    install(FILES ${manifest} ${ARG_DATA} DESTINATION ${TRITONGYM_INSTALL_PLUGIN_DIR}/${target})
  endif()
endfunction()
