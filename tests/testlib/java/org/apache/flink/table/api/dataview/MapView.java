package org.apache.flink.table.api.dataview;
public class MapView<K, V> { }
