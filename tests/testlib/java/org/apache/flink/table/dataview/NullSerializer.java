package org.apache.flink.table.dataview;
public final class NullSerializer extends org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton<Object> { private static final long serialVersionUID = -5381596724707742625L; public static final NullSerializer INSTANCE = new NullSerializer(); }
